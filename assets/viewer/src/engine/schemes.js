// The position schemes of the stand-in stack, as posviz/schemes.py decides them: this module
// holds no scheme of its own. The page that loads the engine gives it the registry Python sent
// (browser_schemes(): the viewer's configuration, or the golden page) with use_schemes; the
// stack then reads a scheme's kind and parameters here, never its name (docs/schemes.md).

let SCHEMES = [];

// Keep the registry Python sent: [{ name, kind, params }], in its order.
export function use_schemes(entries) {
  SCHEMES = Object.freeze(entries.map((each) => Object.freeze({
    name: each.name, kind: each.kind, params: Object.freeze({ ...each.params }) })));
  return SCHEMES;
}

// The names of the schemes the stack offers, in the registry's order.
export function offered() {
  return SCHEMES.map((each) => each.name);
}

// A scheme's entry; a RangeError names the ones the stack offers (none until use_schemes).
export function position_scheme(name) {
  const found = SCHEMES.find((each) => each.name === name);
  if (!found) throw new RangeError(`scheme must be one of ${offered()}, got ${name}`);
  return found;
}
