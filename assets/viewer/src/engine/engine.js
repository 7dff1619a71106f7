// The browser's engine: posviz's numbers for any typed sentence, module for module as the
// Python engine in posviz/ computes them (docs/engines.md). One module a tab imports.
export * as splitmix from './splitmix.js';
export * as tokens from './tokens.js';
export * as nd from './nd.js';
export * as sinusoidal from './sinusoidal.js';
export * as rope from './rope.js';
export * as alibi from './alibi.js';
export * as embedding from './embedding.js';
export * as schemes from './schemes.js';
export * as partial from './partial.js';
export * as attention from './attention.js';
export * as permutation from './permutation.js';
export * as panels from './panels.js';
export * as summary from './summary.js';

// Each module beside its twin in posviz/ (nd is the arrays both sides share: numpy's, here).
export const TWINS = {
  splitmix: 'posviz/splitmix.py', tokens: 'posviz/tokens.py', sinusoidal: 'posviz/sinusoidal.py',
  rope: 'posviz/rope.py', alibi: 'posviz/alibi.py', embedding: 'posviz/embedding.py',
  schemes: 'posviz/schemes.py', partial: 'posviz/partial.py', attention: 'posviz/attention.py',
  permutation: 'posviz/permutation.py', panels: 'posviz/figures/attention.py',
  summary: 'ui/summary.py',
};
