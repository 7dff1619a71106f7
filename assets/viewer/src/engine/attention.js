// Scaled dot-product self-attention with seeded weights (Vaswani et al. 2017, sec. 3.2), as
// posviz/attention.py: the stand-in stack, position entering by the kind of the scheme's entry
// in the registry Python sends (./schemes.js), never by its name.
// Shapes: T = tokens, D = d_model, H = heads, d = D / H, L = layers.
import { alibi_bias, causal_mask } from './alibi.js';
import { array, matmul, transpose } from './nd.js';
import { token_embeddings } from './embedding.js';
import { partial_rope } from './partial.js';
import { position_scheme } from './schemes.js';
import { sinusoidal } from './sinusoidal.js';
import { normals, text_stream } from './splitmix.js';

export const HEAD_DIM = 16;
export const LAYER_WEIGHTS = ['wq', 'wk', 'wv', 'wo'];
// The tables a scheme of kind "input" may add to the stack's input, by its params' table.
export const ADDED_TABLES = { sinusoidal };

// The stream of one projection of one layer: "layer 0 wq", ...
export function layer_stream(layer, name) {
  return text_stream(`layer ${layer} ${name}`);
}

// Layers already drawn, by seed, width and index: a new sentence reuses its weights (read only).
const DRAWN = new Map();

// n_layers layers, each { wq, wk, wv, wo } (D, D) with N(0, 1/D) entries.
export function init_layers(n_layers, d_model, seed = 0) {
  if (!Number.isInteger(n_layers) || n_layers < 1) throw new RangeError(`n_layers must be at least 1, got ${n_layers}`);
  if (!Number.isInteger(d_model) || d_model < 1) throw new RangeError(`d_model must be at least 1, got ${d_model}`);
  const root = Math.sqrt(d_model);
  return Array.from({ length: n_layers }, (_, index) => {
    const key = `${seed} ${d_model} ${index}`;
    if (!DRAWN.has(key)) {
      DRAWN.set(key, Object.freeze(Object.fromEntries(LAYER_WEIGHTS.map((name) => [name, array([d_model, d_model],
        normals(seed, layer_stream(index, name), d_model * d_model).map((w) => w / root))]))));
    }
    return DRAWN.get(key);
  });
}

// (T, D) -> (H, T, d): head h gets channels h*d .. (h+1)*d.
export function split_heads(x, n_heads) {
  const [t, dm] = x.shape;
  if (!(n_heads >= 1) || dm % n_heads) throw new RangeError(`d_model (${dm}) must be a multiple of n_heads (${n_heads})`);
  const d = dm / n_heads;
  const out = array([n_heads, t, d]);
  for (let h = 0; h < n_heads; h += 1) {
    for (let r = 0; r < t; r += 1) out.data.set(x.data.subarray(r * dm + h * d, r * dm + (h + 1) * d), (h * t + r) * d);
  }
  return out;
}

// (H, T, d) -> (T, D).
export function merge_heads(x) {
  const [nh, t, d] = x.shape;
  const out = array([t, nh * d]);
  for (let h = 0; h < nh; h += 1) {
    for (let r = 0; r < t; r += 1) out.data.set(x.data.subarray((h * t + r) * d, (h * t + r + 1) * d), r * nh * d + h * d);
  }
  return out;
}

// Softmax over the last axis, in place on a copy; -Infinity gets weight exactly 0.
export function softmax(scores) {
  const n = scores.shape[scores.shape.length - 1];
  const out = array(scores.shape, Float64Array.from(scores.data));
  const od = out.data;
  for (let o = 0; o < od.length; o += n) {
    let top = -Infinity;
    for (let j = 0; j < n; j += 1) top = Math.max(top, od[o + j]);
    let sum = 0;
    for (let j = 0; j < n; j += 1) { od[o + j] = Math.exp(od[o + j] - top); sum += od[o + j]; }
    for (let j = 0; j < n; j += 1) od[o + j] /= sum;
  }
  return out;
}

// softmax(q k^T / sqrt(d) + bias + mask) for q, k (..., T, d). (..., T, T)
export function attention_weights(q, k, bias = null, causal = false) {
  const scores = matmul(q, transpose(k));
  const root = Math.sqrt(q.shape[q.shape.length - 1]);
  const t = scores.shape[scores.shape.length - 1];
  const sd = scores.data, bd = bias ? bias.data : null;
  for (let at = 0; at < sd.length; at += t) {  // one row (query) at a time
    const query = (at / t) % t;
    for (let key = 0; key < t; key += 1) {
      let s = sd[at + key] / root;
      if (bd) s += bd[(at + key) % bd.length];
      if (causal && key > query) s = -Infinity;
      sd[at + key] = s;
    }
  }
  return softmax(scores);
}

export function queries_keys(x, layer, n_heads) {
  return [split_heads(matmul(x, layer.wq), n_heads), split_heads(matmul(x, layer.wk), n_heads)];
}

// One layer with a residual connection: [weights (H, T, T), output (T, D)].
// Kind "rotate" turns q and k (its fraction of each head, in its pairing); "bias" adds ALiBi's.
export function attention_layer(x, layer, n_heads, scheme, causal = true, base = 10000.0) {
  const how = position_scheme(scheme);
  const t = x.shape[0];
  let [q, k] = queries_keys(x, layer, n_heads);
  if (how.kind === 'rotate') {
    const positions = Array.from({ length: t }, (_, i) => i);
    const { fraction, pairing } = how.params;
    [q, k] = [partial_rope(q, positions, fraction, base, pairing), partial_rope(k, positions, fraction, base, pairing)];
  }
  const weights = attention_weights(q, k, how.kind === 'bias' ? alibi_bias(n_heads, t) : null, causal);
  const v = split_heads(matmul(x, layer.wv), n_heads);
  const mixed = matmul(merge_heads(matmul(weights, v)), layer.wo);
  return [weights, array(x.shape, x.data.map((value, at) => value + mixed.data[at]))];
}

// True (1) where query i may attend to key j. (T, T)
export function attention_mask(seq_len, causal) {
  return causal ? causal_mask(seq_len) : array([seq_len, seq_len], new Float64Array(seq_len * seq_len).fill(1));
}

// n_layers layers over token embeddings x (T, D): { weights: L x (H, T, T), outputs: L x (T, D), mask }.
export function attention_stack(x, n_layers, n_heads, scheme, causal = true, seed = 0, base = 10000.0) {
  if (x.shape.length !== 2 || x.shape[0] < 1) throw new RangeError(`x must be (tokens, d_model) with at least one token, got ${x.shape}`);
  const how = position_scheme(scheme);
  const [t, dm] = x.shape;
  let h = x;
  if (how.kind === 'input') {
    const pe = ADDED_TABLES[how.params.table](t, dm, base);
    h = array(x.shape, x.data.map((value, at) => value + pe.data[at]));
  }
  const weights = [], outputs = [];
  for (const layer of init_layers(n_layers, dm, seed)) {
    const [w, out] = attention_layer(h, layer, n_heads, scheme, causal, base);
    weights.push(w);
    outputs.push(out);
    h = out;
  }
  return { weights, outputs, mask: attention_mask(t, causal) };
}

// The weights of one layer averaged over its heads. (T, T)
export function mean_weights(run, layer) {
  const [nh, t] = run.weights[layer].shape;
  const out = array([t, t]);
  for (let h = 0; h < nh; h += 1) for (let at = 0; at < t * t; at += 1) out.data[at] += run.weights[layer].data[h * t * t + at];
  return array([t, t], out.data.map((v) => v / nh));
}

// The seeded model's first layer as one head of width d_model on tokens: [x, q, k, layer].
export function one_head(tokens, d_model, seed = 0) {
  const layer = init_layers(1, d_model, seed)[0];
  const x = token_embeddings(tokens, d_model);
  const [q, k] = queries_keys(x, layer, 1);
  return [x, array([tokens.length, d_model], q.data), array([tokens.length, d_model], k.data), layer];
}
