// Copies KaTeX and markdown-it's own browser builds into static/, and axe-core's into tests/browser/ (the
// accessibility test injects it; it is not served to users), each under a one-line banner; bundles
// posviz's chart element (the modules in chart/) into static/chart.js with esbuild.
// KaTeX's CSS gets its fonts inlined (woff2 only, as data: URLs), so it needs no other file and no
// network. Plain Node, nothing but the pinned packages: `npm install && npm run build`.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const staticDir = join(here, '..', '..', 'static');
const testsDir = join(here, '..', '..', 'tests', 'browser');
const require = createRequire(import.meta.url);
const pinned = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).devDependencies;

function pkg(name) {
  const root = dirname(require.resolve(`${name}/package.json`));
  const meta = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  if (meta.version !== pinned[name]) {
    throw new Error(`${name} ${meta.version} is installed but ${pinned[name]} is pinned: run npm install`);
  }
  return { root, meta };
}

function banner({ meta }, what) {
  return `/* ${meta.name} ${meta.version} (${meta.license}), ${what}: assets/viewer/ */\n`;
}

function write(file, text, dir = staticDir) {
  // The .map files are not copied, so their comments go too.
  const body = text.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '').trimEnd() + '\n';
  writeFileSync(join(dir, file), body);
  console.log(`${dir === testsDir ? 'tests/browser' : 'static'}/${file}: ${Buffer.byteLength(body)} bytes`);
}

const katex = pkg('katex');
write('katex.min.js', banner(katex, 'dist/katex.min.js') + readFileSync(join(katex.root, 'dist/katex.min.js'), 'utf8'));

const katexDist = join(katex.root, 'dist');
let faces = 0;
const css = readFileSync(join(katexDist, 'katex.min.css'), 'utf8').replace(/@font-face\{[^}]*\}/g, (face) => {
  faces += 1;
  return face.replace(/src:[^;}]*/, (src) => {
    const woff2 = /url\(\s*["']?([^"')]+\.woff2)["']?\s*\)/.exec(src);
    if (!woff2) throw new Error(`no woff2 in ${face}`);
    const data = readFileSync(join(katexDist, woff2[1])).toString('base64');
    return `src:url(data:font/woff2;base64,${data}) format("woff2")`;
  });
});
if (faces === 0 || /url\((?!data:)/.test(css)) throw new Error('katex.min.css still refers to other files');
write('katex.min.css', banner(katex, `dist/katex.min.css, ${faces} fonts inlined as woff2`) + css);

const markdownIt = pkg('markdown-it');
write(
  'markdown-it.min.js',
  banner(markdownIt, 'dist/browser/markdown-it.umd.min.js') +
    readFileSync(join(markdownIt.root, 'dist/browser/markdown-it.umd.min.js'), 'utf8'),
);

const axe = pkg('axe-core');
write('axe.min.js', banner(axe, 'axe.min.js') + readFileSync(join(axe.root, 'axe.min.js'), 'utf8'), testsDir);

// posviz's chart element: the modules in chart/ as one ES module (the app loads static/chart.js as
// a component; the room's screen imports it; the offline files inline it). Its first line names
// the sources' digest, which tests/project/test_bundle.py checks against chart/: an edit that was
// not built fails there.
pkg('esbuild');
const chartDir = join(here, 'chart');
const digest = createHash('sha256');
for (const file of readdirSync(chartDir).filter((f) => f.endsWith('.js')).sort()) {
  digest.update(`${file}\n${readFileSync(join(chartDir, file), 'utf8')}`);
}
const [bundle] = buildSync({
  entryPoints: [join(chartDir, 'chart.js')], bundle: true, format: 'esm', target: 'es2022',
  legalComments: 'none', write: false,
}).outputFiles;
write('chart.js', `// posviz's chart element, bundled from assets/viewer/chart/ (sources sha256 ${digest.digest('hex')}) by \`npm run build\`: edit those.\n${bundle.text}`);
