// Typed text into tokens, as posviz/tokens.py splits it: each Han, kana, Hangul or Bopomofo
// character a token, a run of letters (with their marks) a word, a run of decimal digits a
// number, each emoji and each punctuation mark or symbol a token; white space, controls and
// invisible format characters separate tokens and are dropped. Works on grapheme clusters
// (Intl.Segmenter here, the `regex` module's \X there); where the browser's Unicode tables differ
// from Python's, docs/engines.md says which inputs and tests/browser/test_golden.py tests them.

export const MAX_TOKENS = 64;
export const MAX_LABEL_CHARS = 12;

const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]/u;
const EMOJI = /^(?:[\p{Extended_Pictographic}\p{Regional_Indicator}]|[^\n][\ufe0f\u20e3])/u;
const LETTER = /^[\p{L}\p{M}]/u;
const DIGIT = /^\p{Nd}/u;
const SPACE = /^[\p{White_Space}\p{C}]/u;  // white space, controls, bidi marks, zero-width

export function clusters(text) {
  return Array.from(GRAPHEMES.segment(text), (s) => s.segment);
}

function kind(cluster) {
  if (EMOJI.test(cluster)) return 'emoji';
  if (SPACE.test(cluster)) return 'space';
  if (CJK.test(cluster)) return 'cjk';
  if (LETTER.test(cluster)) return 'letter';
  if (DIGIT.test(cluster)) return 'digit';
  return 'mark';
}

export function tokenize(text) {
  const tokens = [];
  let run = '';
  let runKind = '';
  for (const cluster of clusters(text)) {
    const k = kind(cluster);
    if (k === runKind && (k === 'letter' || k === 'digit')) {
      run += cluster;
      continue;
    }
    if (run) tokens.push(run);
    [run, runKind] = k === 'space' ? ['', ''] : [cluster, k];
  }
  if (run) tokens.push(run);
  return tokens;
}

export function clip_tokens(tokens, max_tokens = MAX_TOKENS) {
  if (max_tokens < 1) throw new RangeError(`max_tokens must be at least 1, got ${max_tokens}`);
  return [tokens.slice(0, max_tokens), tokens.length];
}

export function short(token, max_chars = MAX_LABEL_CHARS) {
  const parts = clusters(token);
  return parts.length <= max_chars ? token : `${parts.slice(0, max_chars - 1).join('')}…`;
}

export function token_labels(tokens) {
  return tokens.map((token, t) => `${t} ${short(token)}`);
}
