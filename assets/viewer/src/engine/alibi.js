// ALiBi (Press et al. 2022, sec. 3), as posviz/alibi.py. Shapes: H = heads, T = positions.
import { array } from './nd.js';

function powerOfTwoExponents(n) {  // log2 m_h = -8h/n, h = 1..n
  return Array.from({ length: n }, (_, h) => (-8.0 * (h + 1)) / n);
}

// The closest power of two p <= n_heads.
export function base_head_count(n_heads) {
  if (!Number.isInteger(n_heads) || n_heads < 1) throw new RangeError(`n_heads must be at least 1, got ${n_heads}`);
  let p = 1;
  while (p * 2 <= n_heads) p *= 2;
  return p;
}

// log2 of each head's slope: the p-head list, then every other slope of the 2p-head list. (H,)
export function slope_exponents(n_heads) {
  const p = base_head_count(n_heads);
  const extra = powerOfTwoExponents(2 * p).filter((_, i) => i % 2 === 0).slice(0, n_heads - p);
  return Float64Array.from([...powerOfTwoExponents(p), ...extra]);
}

export function alibi_slopes(n_heads) {
  return slope_exponents(n_heads).map((e) => 2.0 ** e);
}

// True where query i may attend to key j (j <= i), as 1 and 0. (T, T)
export function causal_mask(seq_len) {
  const out = array([seq_len, seq_len]);
  for (let i = 0; i < seq_len; i += 1) for (let j = 0; j <= i; j += 1) out.data[i * seq_len + j] = 1;
  return out;
}

// bias[h, i, j] = -m_h |i - j|. (H, T, T)
export function alibi_bias(n_heads, seq_len) {
  const slopes = alibi_slopes(n_heads);
  const out = array([n_heads, seq_len, seq_len]);
  for (let h = 0; h < n_heads; h += 1) {
    for (let i = 0; i < seq_len; i += 1) {
      for (let j = 0; j < seq_len; j += 1) out.data[(h * seq_len + i) * seq_len + j] = -slopes[h] * Math.abs(i - j);
    }
  }
  return out;
}

// The reference code's form: bias[h, i, j] = +m_h j. (H, T, T)
export function alibi_key_bias(n_heads, seq_len) {
  const slopes = alibi_slopes(n_heads);
  const out = array([n_heads, seq_len, seq_len]);
  for (let h = 0; h < n_heads; h += 1) {
    for (let i = 0; i < seq_len; i += 1) {
      for (let j = 0; j < seq_len; j += 1) out.data[(h * seq_len + i) * seq_len + j] = slopes[h] * j;
    }
  }
  return out;
}

// matrix (..., T, T) with the cells a causal mask hides (j > i) set to NaN.
export function hide_masked(matrix) {
  const t = matrix.shape[matrix.shape.length - 1];
  const out = array(matrix.shape, Float64Array.from(matrix.data));
  out.data.forEach((_, at) => { if (at % t > Math.floor(at / t) % t) out.data[at] = NaN; });
  return out;
}

// -m_h (i - j) where j <= i, NaN where hidden; position=false: zero wherever visible. (H, T, T)
export function causal_alibi_bias(n_heads, seq_len, position = true) {
  return hide_masked(position ? alibi_bias(n_heads, seq_len) : array([n_heads, seq_len, seq_len]));
}
