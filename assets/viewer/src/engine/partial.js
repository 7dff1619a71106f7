// Partial RoPE (GPT-NeoX's rotary_pct, Hugging Face's partial_rotary_factor), as
// posviz/partial.py: RoPE turns the first channels of each head, the rest carry content only.
// Shapes: T = tokens, d = channels of a head, r = channels turned.
import { array } from './nd.js';
import { apply_rope } from './rope.js';

// How many channels of a head RoPE turns: int(head_dim * fraction), an even count >= 2.
export function rotated_dims(head_dim, fraction) {
  if (!(fraction > 0 && fraction <= 1)) throw new RangeError(`the rotated fraction must lie in (0, 1], got ${fraction}`);
  const dims = Math.trunc(head_dim * fraction);
  if (dims < 2 || dims % 2) throw new RangeError(`${fraction} of ${head_dim} channels is ${dims}: not an even count >= 2`);
  return dims;
}

// The first rotated_dims channels of each row of x (..., T, d) turned as RoPE turns a head of
// that width, the rest passed through. Same shape.
export function partial_rope(x, positions, fraction, base = 10000.0, pairing = 'half') {
  const shape = x.shape, d = shape[shape.length - 1], rows = x.data.length / d;
  const r = rotated_dims(d, fraction);
  const head = array([...shape.slice(0, -1), r]);
  for (let row = 0; row < rows; row += 1) head.data.set(x.data.subarray(row * d, row * d + r), row * r);
  const turned = apply_rope(head, positions, base, pairing);
  const out = array(shape, Float64Array.from(x.data));
  for (let row = 0; row < rows; row += 1) out.data.set(turned.data.subarray(row * r, (row + 1) * r), row * d);
  return out;
}
