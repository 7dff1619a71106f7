// Token embeddings, as posviz/embedding.py: each distinct token a vector of N(0, 1) entries
// drawn from the stream named by its text (splitmix.js: the same doubles as the Python engine).
// Shapes: T = number of tokens, D = d_model.
import { array } from './nd.js';
import { normals, text_stream } from './splitmix.js';

export function token_stream(token) {
  return text_stream(token);
}

// Rows already drawn, by seed, width and token (a token's row is the same in every sentence):
// a sentence typed a key at a time draws only its newest token. Bounded: the oldest go first.
const ROWS = new Map();
const MOST_ROWS = 4096;

function row(token, d_model, seed) {
  const key = `${seed} ${d_model} ${token}`;
  let drawn = ROWS.get(key);
  if (!drawn) {
    drawn = normals(seed, token_stream(token), d_model);
    if (ROWS.size >= MOST_ROWS) ROWS.delete(ROWS.keys().next().value);
    ROWS.set(key, drawn);
  }
  return drawn;
}

// E[t] = e(tokens[t]). (T, D)
export function token_embeddings(tokens, d_model, seed = 0) {
  if (!Number.isInteger(d_model) || d_model < 1) throw new RangeError(`d_model must be at least 1, got ${d_model}`);
  const out = array([tokens.length, d_model]);
  tokens.forEach((token, t) => out.data.set(row(token, d_model, seed), t * d_model));
  return out;
}

// C[s, t] = x_s . x_t / (|x_s| |x_t|), a zero row 0 with everything. (T, T)
export function cosine_similarity(x) {
  const [n, d] = x.shape;
  const unit = Float64Array.from(x.data);
  for (let s = 0; s < n; s += 1) {
    let sq = 0;
    for (let c = 0; c < d; c += 1) sq += x.data[s * d + c] ** 2;
    const norm = Math.sqrt(sq) || 1.0;
    for (let c = 0; c < d; c += 1) unit[s * d + c] /= norm;
  }
  const out = array([n, n]);
  for (let s = 0; s < n; s += 1) {
    for (let t = 0; t < n; t += 1) {
      let sum = 0;
      for (let c = 0; c < d; c += 1) sum += unit[s * d + c] * unit[t * d + c];
      out.data[s * n + t] = sum;
    }
  }
  return out;
}
