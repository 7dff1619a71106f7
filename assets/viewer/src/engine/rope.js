// Rotary position embedding (Su et al. 2021, RoFormer, sec. 3.2-3.4), as posviz/rope.py.
// Shapes: T = positions, d = head dimension (even), P = d/2 pairs, K = offsets, N = pairs chosen.
import { array, matmul, transpose } from './nd.js';

export const PAIRINGS = ['interleaved', 'half'];

// theta_i = base^(-2i/dim), i = 0..P-1. (P,)
export function rope_frequencies(dim, base = 10000.0) {
  if (!Number.isInteger(dim) || dim < 2 || dim % 2) throw new RangeError(`dim must be a positive even number, got ${dim}`);
  if (!(base > 1)) throw new RangeError(`base must be greater than 1, got ${base}`);
  return Float64Array.from({ length: dim / 2 }, (_, i) => base ** (-(2 * i) / dim));
}

// The channels (a_i, b_i) of pair i: (2i, 2i+1) interleaved, (i, i + P) half. Two (P,) lists.
export function pair_index(dim, pairing = 'interleaved') {
  if (!PAIRINGS.includes(pairing)) throw new RangeError(`pairing must be one of ${PAIRINGS}, got ${pairing}`);
  const half = Array.from({ length: dim / 2 }, (_, i) => i);
  return pairing === 'interleaved'
    ? [half.map((i) => 2 * i), half.map((i) => 2 * i + 1)]
    : [half, half.map((i) => i + dim / 2)];
}

// Each pair of x[..., t, :] turned counter-clockwise by positions[t] * theta_i. (..., T, d)
export function apply_rope(x, positions, base = 10000.0, pairing = 'interleaved', frequencies = null) {
  const d = x.shape[x.shape.length - 1];
  const t = x.shape[x.shape.length - 2];
  const theta = frequencies ?? rope_frequencies(d, base);
  const [a, b] = pair_index(d, pairing);
  const cos = new Float64Array(t * a.length), sin = new Float64Array(t * a.length);
  for (let r = 0; r < t; r += 1) {
    for (let i = 0; i < a.length; i += 1) {
      const angle = positions[r] * theta[i];
      cos[r * a.length + i] = Math.cos(angle);
      sin[r * a.length + i] = Math.sin(angle);
    }
  }
  const out = array(x.shape);
  for (let row = 0; row < x.data.length / d; row += 1) {
    const r = row % t, o = row * d;
    for (let i = 0; i < a.length; i += 1) {
      const xa = x.data[o + a[i]], xb = x.data[o + b[i]];
      const c = cos[r * a.length + i], s = sin[r * a.length + i];
      out.data[o + a[i]] = xa * c - xb * s;
      out.data[o + b[i]] = xa * s + xb * c;
    }
  }
  return out;
}

// Pair i's two channels of every row of x (..., T, d). (..., T, 2)
export function pair_coordinates(x, pair, pairing = 'interleaved') {
  const d = x.shape[x.shape.length - 1];
  const [a, b] = pair_index(d, pairing);
  if (!(pair >= 0 && pair < a.length)) throw new RangeError(`pair must lie in 0..${a.length - 1}, got ${pair}`);
  const rows = x.data.length / d;
  const out = array([...x.shape.slice(0, -1), 2]);
  for (let r = 0; r < rows; r += 1) {
    out.data[2 * r] = x.data[r * d + a[pair]];
    out.data[2 * r + 1] = x.data[r * d + b[pair]];
  }
  return out;
}

// Where one vector (d,) lands in each chosen pair's plane at each position. (N, K, 2)
export function pair_trajectory(vector, positions, pairs, base = 10000.0, pairing = 'interleaved') {
  const d = vector.length;
  const placed = array([positions.length, d]);
  positions.forEach((_, k) => placed.data.set(vector, k * d));
  const rotated = apply_rope(placed, positions, base, pairing);
  const out = array([pairs.length, positions.length, 2]);
  pairs.forEach((p, n) => out.data.set(pair_coordinates(rotated, p, pairing).data, n * positions.length * 2));
  return out;
}

// s[m, n] = <R_(p_m) q_m, R_(p_n) k_n> for q, k (T, d). (T, T)
export function rope_scores(q, k, positions, base = 10000.0, pairing = 'interleaved') {
  return matmul(apply_rope(q, positions, base, pairing), transpose(apply_rope(k, positions, base, pairing)));
}

// The score of q_m and k_n after moving the whole sentence by each offset o. (K,)
export function shifted_rope_scores(q, k, m, n, offsets, base = 10000.0, pairing = 'interleaved') {
  const [t, d] = q.shape;
  if (!(m >= 0 && m < t && n >= 0 && n < t)) throw new RangeError(`positions must lie in 0..${t - 1}, got ${m} and ${n}`);
  if (offsets.some((o) => o < 0)) throw new RangeError('offsets must not be negative');
  const placed = (x, row) => {
    const out = array([offsets.length, d]);
    offsets.forEach((_, i) => out.data.set(x.data.subarray(row * d, (row + 1) * d), i * d));
    return out;
  };
  const qs = apply_rope(placed(q, m), offsets.map((o) => m + o), base, pairing);
  const ks = apply_rope(placed(k, n), offsets.map((o) => n + o), base, pairing);
  return Float64Array.from(offsets, (_, i) => {
    let sum = 0;
    for (let c = 0; c < d; c += 1) sum += qs.data[i * d + c] * ks.data[i * d + c];
    return sum;
  });
}

// |x_t| and |R_(p_t) x_t| for every row of x (T, d): equal. Two (T,) arrays.
export function rope_norms(x, positions, base = 10000.0, pairing = 'interleaved') {
  const d = x.shape[x.shape.length - 1];
  const norms = (y) => Float64Array.from({ length: y.data.length / d }, (_, r) => {
    let sq = 0;
    for (let c = 0; c < d; c += 1) sq += y.data[r * d + c] ** 2;
    return Math.sqrt(sq);
  });
  return [norms(x), norms(apply_rope(x, positions, base, pairing))];
}
