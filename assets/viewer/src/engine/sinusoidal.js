// Sinusoidal positional encoding (Vaswani et al. 2017, sec. 3.5), as posviz/sinusoidal.py.
// Shapes: T = number of positions, D = d_model.
import { array } from './nd.js';

export const LAYOUTS = ['interleaved', 'concatenated'];

export function check_sizes(d_model, base) {
  if (!Number.isInteger(d_model) || d_model < 2 || d_model % 2) {
    throw new RangeError(`d_model must be a positive even number, got ${d_model}`);
  }
  if (!(base > 1)) throw new RangeError(`base must be greater than 1, got ${base}`);
}

// w_i = base^(-2i/d_model), i = 0..D/2-1. (D/2,)
export function frequencies(d_model, base = 10000.0) {
  check_sizes(d_model, base);
  return Float64Array.from({ length: d_model / 2 }, (_, i) => base ** (-(2 * i) / d_model));
}

// The rows of `sinusoidal` for the given positions. (len(positions), D)
export function sinusoidal_at(positions, d_model, base = 10000.0, layout = 'interleaved') {
  if (!LAYOUTS.includes(layout)) throw new RangeError(`layout must be one of ${LAYOUTS}, got ${layout}`);
  const w = frequencies(d_model, base);
  const half = d_model / 2;
  const pe = array([positions.length, d_model]);
  positions.forEach((t, row) => {
    for (let i = 0; i < half; i += 1) {
      const angle = t * w[i];
      const [a, b] = layout === 'interleaved' ? [2 * i, 2 * i + 1] : [i, half + i];
      pe.data[row * d_model + a] = Math.sin(angle);
      pe.data[row * d_model + b] = Math.cos(angle);
    }
  });
  return pe;
}

// PE[t, 2i] = sin(t w_i), PE[t, 2i+1] = cos(t w_i). (T, D)
export function sinusoidal(seq_len, d_model, base = 10000.0, layout = 'interleaved') {
  if (seq_len < 0) throw new RangeError(`seq_len must not be negative, got ${seq_len}`);
  return sinusoidal_at(Array.from({ length: seq_len }, (_, t) => t), d_model, base, layout);
}

// S[p, q] = PE(p) . PE(q). (T, T)
export function similarity(pe) {
  const [n, d] = pe.shape;
  const out = array([n, n]);
  for (let p = 0; p < n; p += 1) {
    for (let q = 0; q < n; q += 1) {
      let sum = 0;
      for (let c = 0; c < d; c += 1) sum += pe.data[p * d + c] * pe.data[q * d + c];
      out.data[p * n + q] = sum;
    }
  }
  return out;
}
