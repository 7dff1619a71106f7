// posviz's random numbers, as posviz/splitmix.py draws them, bit for bit: SplitMix64 used as a
// counter-based generator on (seed, stream, index), uniform doubles from 53 bits, normals by
// Box-Muller with ln, cos and sin made of +, -, *, / and sqrt in the same order as the Python
// engine (IEEE 754 rounds each of those exactly, so both engines get the same doubles).
// A 64-bit word is a pair [hi, lo] of unsigned 32-bit numbers.

export const GAMMA = [0x9E3779B9, 0x7F4A7C15];
const FNV_OFFSET = [0xCBF29CE4, 0x84222325];
const FNV_PRIME = [0x00000100, 0x000001B3];
const MIX_1 = [0xBF58476D, 0x1CE4E5B9];
const MIX_2 = [0x94D049BB, 0x133111EB];
export const LN2 = 0.6931471805599453;
export const HALF_PI = 1.5707963267948966;
export const SQRT_HALF = 0.7071067811865476;
const TWO_32 = 4294967296;

// 1/23, 1/21, ..., 1/3, 1 (the atanh series of log_unit, highest first).
export const LOG_TERMS = Array.from({ length: 12 }, (_, n) => 1.0 / (2 * (11 - n) + 1));
// 1/k! for k = 0..25, each the previous divided by k.
export const INVERSE_FACTORIALS = [1.0];
for (let k = 1; k < 26; k += 1) INVERSE_FACTORIALS.push(INVERSE_FACTORIALS[k - 1] / k);

function add64([ah, al], [bh, bl]) {
  const lo = al + bl;
  return [(ah + bh + (lo >= TWO_32 ? 1 : 0)) >>> 0, lo >>> 0];
}

function mul32(a, b) {  // the full 64-bit product of two unsigned 32-bit numbers
  const a0 = a & 0xffff, a1 = a >>> 16, b0 = b & 0xffff, b1 = b >>> 16;
  const mid = a0 * b1 + a1 * b0;                          // < 2^33, exact
  const low = a0 * b0 + (mid % 65536) * 65536;            // < 2^33, exact
  return [(a1 * b1 + Math.floor(mid / 65536) + Math.floor(low / TWO_32)) >>> 0, low >>> 0];
}

function mul64([ah, al], [bh, bl]) {  // mod 2^64
  const [h, l] = mul32(al, bl);
  return [(h + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0, l];
}

function xorShift([h, l], s) {  // z ^ (z >> s), 0 < s < 32
  return [(h ^ (h >>> s)) >>> 0, (l ^ ((l >>> s) | (h << (32 - s)))) >>> 0];
}

export function mix64(z) {
  return xorShift(mul64(xorShift(mul64(xorShift(z, 30), MIX_1), 27), MIX_2), 31);
}

function word(value) {  // a non-negative safe integer as a 64-bit word
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`seed, stream and counter must be non-negative integers, got ${value}`);
  }
  return [Math.floor(value / TWO_32) >>> 0, value >>> 0];
}

// The UTF-8 bytes of text, a lone surrogate written as its three bytes (Python's surrogatepass).
export function utf8(text) {
  const bytes = [];
  for (const ch of text) {
    const c = ch.codePointAt(0);
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return bytes;
}

// A stream's number from its name: FNV-1a (64 bits) of its UTF-8 bytes. [hi, lo].
export function text_stream(text) {
  let h = FNV_OFFSET;
  for (const byte of utf8(text)) h = mul64([h[0], (h[1] ^ byte) >>> 0], FNV_PRIME);
  return h;
}

// key = mix64(mix64(seed + GAMMA) ^ stream); stream is [hi, lo] or a non-negative integer.
export function stream_key(seed, stream) {
  const s = Array.isArray(stream) ? stream : word(stream);
  const m = mix64(add64(word(seed), GAMMA));
  return mix64([(m[0] ^ s[0]) >>> 0, (m[1] ^ s[1]) >>> 0]);
}

// mix64 of [h, l] without allocating: the result's halves in MIXED (the hot loop of `uniforms`).
const MIXED = new Uint32Array(2);
function mulInPlace(ah, al, bh, bl) {  // MIXED = [ah, al] * [bh, bl] mod 2^64
  const a0 = al & 0xffff, a1 = al >>> 16, b0 = bl & 0xffff, b1 = bl >>> 16;
  const mid = a0 * b1 + a1 * b0;
  const low = a0 * b0 + (mid % 65536) * 65536;
  MIXED[0] = a1 * b1 + Math.floor(mid / 65536) + Math.floor(low / TWO_32)
    + Math.imul(ah, bl) + Math.imul(al, bh);
  MIXED[1] = low;
}

function mixInPlace(h, l) {
  mulInPlace((h ^ (h >>> 30)) >>> 0, (l ^ ((l >>> 30) | (h << 2))) >>> 0, MIX_1[0], MIX_1[1]);
  let hi = MIXED[0], lo = MIXED[1];
  mulInPlace((hi ^ (hi >>> 27)) >>> 0, (lo ^ ((lo >>> 27) | (hi << 5))) >>> 0, MIX_2[0], MIX_2[1]);
  hi = MIXED[0]; lo = MIXED[1];
  MIXED[1] = lo ^ ((lo >>> 31) | (hi << 1));
  MIXED[0] = hi ^ (hi >>> 31);
}

// Uniform doubles in [0, 1) of words start .. start + count - 1: (word >> 11) * 2^-53. (N,)
export function uniforms(seed, stream, count, start = 0) {
  let [h, l] = add64(stream_key(seed, stream), mul64(word(start), GAMMA));
  const out = new Float64Array(count);
  for (let i = 0; i < count; i += 1) {
    l += GAMMA[1];
    h = (h + GAMMA[0] + (l >= TWO_32 ? 1 : 0)) >>> 0;
    l >>>= 0;
    mixInPlace(h, l);
    out[i] = (MIXED[0] * 2097152 + (MIXED[1] >>> 11)) * 2 ** -53;
  }
  return out;
}

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);  // little-endian: U32[1] holds the sign and exponent

// ln u for u in (0, 1], as posviz.splitmix.log_unit computes it.
export function log_unit(u) {
  F64[0] = u;
  const bits = U32[1];
  let e = ((bits >>> 20) & 0x7ff) - 1022;
  U32[1] = (bits & 0x800fffff) | (1022 << 20);
  let m = F64[0];
  if (m < SQRT_HALF) { m *= 2.0; e -= 1; }
  const s = (m - 1.0) / (m + 1.0);
  const s2 = s * s;
  let series = LOG_TERMS[0];
  for (let n = 1; n < LOG_TERMS.length; n += 1) series = series * s2 + LOG_TERMS[n];
  return e * LN2 + 2.0 * s * series;
}

const COS_TERMS = [], SIN_TERMS = [];  // the signed 1/k! of the two series, highest first
for (let k = 22; k >= 0; k -= 2) COS_TERMS.push(k % 4 === 0 ? INVERSE_FACTORIALS[k] : -INVERSE_FACTORIALS[k]);
for (let k = 23; k >= 1; k -= 2) SIN_TERMS.push(k % 4 === 1 ? INVERSE_FACTORIALS[k] : -INVERSE_FACTORIALS[k]);
const TURNED = new Float64Array(2);

function turnInPlace(v) {  // TURNED = [cos 2 pi v, sin 2 pi v]
  const t = v * 4.0;
  const q = Math.floor(t);
  const x = (t - q) * HALF_PI;
  const x2 = x * x;
  let c = INVERSE_FACTORIALS[24];
  for (let n = 0; n < COS_TERMS.length; n += 1) c = c * x2 + COS_TERMS[n];
  let s = INVERSE_FACTORIALS[25];
  for (let n = 0; n < SIN_TERMS.length; n += 1) s = s * x2 + SIN_TERMS[n];
  s *= x;
  if (q === 0) { TURNED[0] = c; TURNED[1] = s; } else if (q === 1) { TURNED[0] = -s; TURNED[1] = c; }
  else if (q === 2) { TURNED[0] = -c; TURNED[1] = -s; } else { TURNED[0] = s; TURNED[1] = -c; }
}

// [cos 2 pi v, sin 2 pi v] for v in [0, 1), as posviz.splitmix.turn computes them.
export function turn(v) {
  turnInPlace(v);
  return [TURNED[0], TURNED[1]];
}

// count standard normal doubles of the stream, by Box-Muller pairs. (N,)
export function normals(seed, stream, count) {
  const pairs = Math.floor((count + 1) / 2);
  const u = uniforms(seed, stream, 2 * pairs);
  const out = new Float64Array(2 * pairs);
  for (let p = 0; p < pairs; p += 1) {
    const r = Math.sqrt(-2.0 * log_unit(1.0 - u[2 * p]));
    turnInPlace(u[2 * p + 1]);
    out[2 * p] = r * TURNED[0];
    out[2 * p + 1] = r * TURNED[1];
  }
  return out.subarray(0, count);
}
