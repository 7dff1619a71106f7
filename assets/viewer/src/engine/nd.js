// The engine's arrays: { shape, data }, data a Float64Array in row-major (C) order, as numpy
// holds a float64 array; shapes are those of the Python functions they mirror.

export function array(shape, data = null) {
  const size = shape.reduce((a, b) => a * b, 1);
  const out = data ?? new Float64Array(size);
  if (out.length !== size) throw new RangeError(`${out.length} values for shape ${shape}`);
  return { shape: [...shape], data: out };
}

// a (..., n, k) @ b (k, m) -> (..., n, m), or batched a (B, n, k) @ b (B, k, m).
export function matmul(a, b) {
  const [n, k] = a.shape.slice(-2);
  const m = b.shape[b.shape.length - 1];
  if (b.shape[b.shape.length - 2] !== k) throw new RangeError(`matmul ${a.shape} @ ${b.shape}`);
  const batch = a.data.length / (n * k);
  const bBatch = b.shape.length > 2 ? b.data.length / (k * m) : 1;
  const out = array([...a.shape.slice(0, -1), m]);
  const ad = a.data, bd = b.data, od = out.data;  // typed arrays held in locals: V8 keeps them fast
  for (let s = 0; s < batch; s += 1) {
    const ao = s * n * k, bo = (bBatch > 1 ? s : 0) * k * m, oo = s * n * m;
    for (let i = 0; i < n; i += 1) {  // out[i, j] summed over c in order, rows of b in turn
      const row = oo + i * m;
      for (let c = 0; c < k; c += 1) {
        const left = ad[ao + i * k + c], from = bo + c * m;
        for (let j = 0; j < m; j += 1) od[row + j] += left * bd[from + j];
      }
    }
  }
  return out;
}

// The last two axes swapped: (..., n, m) -> (..., m, n).
export function transpose(a) {
  const [n, m] = a.shape.slice(-2);
  const out = array([...a.shape.slice(0, -2), m, n]);
  const ad = a.data, od = out.data;
  for (let s = 0; s < ad.length / (n * m); s += 1) {
    const o = s * n * m;
    for (let i = 0; i < n; i += 1) {
      for (let j = 0; j < m; j += 1) od[o + j * n + i] = ad[o + i * m + j];
    }
  }
  return out;
}

export function arange(n) {
  return Array.from({ length: n }, (_, i) => i);
}
