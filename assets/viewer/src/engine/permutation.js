// Reordering a sentence and comparing the two runs token by token, as posviz/permutation.py
// (the part the live charts draw: reversal, reordered, token_gaps of compare_runs).
// Shapes: T = tokens, D = d_model, L = layers.

// [T-1, ..., 1, 0]; with keep_last, only the tokens before the last are reversed. (T,)
export function reversal(seq_len, keep_last = false) {
  const moved = keep_last && seq_len ? seq_len - 1 : seq_len;
  return Array.from({ length: seq_len }, (_, k) => (k < moved ? moved - 1 - k : k));
}

// The sentence in the new order: position k holds tokens[order[k]].
export function reordered(tokens, order) {
  return order.map((k) => tokens[k]);
}

// The runs (attention.js's attention_stack) of a sentence and of its reordering compared by
// token, the reordering's outputs moved back with their tokens first: for each token, its
// largest change over every layer and channel, |y - y'| (posviz's compare_runs' token_gaps). (T,)
export function token_gaps(original, reordered_run, order) {
  const t = order.length;
  const back = new Array(t);
  order.forEach((from, k) => { back[from] = k; });  // back[i]: where the original token i went
  const gaps = new Float64Array(t);
  original.outputs.forEach((y, l) => {
    const d = y.shape[1], moved = reordered_run.outputs[l].data;
    for (let i = 0; i < t; i += 1) {
      for (let c = 0; c < d; c += 1) {
        const gap = Math.abs(y.data[i * d + c] - moved[back[i] * d + c]);
        if (gap > gaps[i]) gaps[i] = gap;
      }
    }
  });
  return gaps;
}
