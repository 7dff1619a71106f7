// Files a chart saves: one download, or every chart of a page packed into one zip of PNG,
// SVG, CSV and .npy files.

import { arrays, shown, tables } from "./numbers.js";

export function save(name, bytes, type) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([bytes], { type }));
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

const encode = (text) => new TextEncoder().encode(text);
// The file of the i-th of n matrices (or stacks of them): named by its trace (E, P, E+P, ...)
// when the figure names every matrix apart, else numbered.
export function numbered(gd, name, i, n, ext) {
  if (n === 1) return `${name}.${ext}`;
  const parts = gd.data.filter((t) => t.type === "heatmap" && shown(t)).map((t) => t.name);
  const named = parts.length === n && parts.every(Boolean) && new Set(parts).size === n;
  return `${name}-${named ? parts[i] : i + 1}.${ext}`;
}

async function image(gd, format) {
  const url = await window.Plotly.toImage(gd, { format, scale: format === "png" ? 2 : 1 });
  if (format === "svg") return encode(decodeURIComponent(url.slice(url.indexOf(",") + 1)));
  return Uint8Array.from(atob(url.slice(url.indexOf(",") + 1)), (c) => c.charCodeAt(0));
}

// A zip archive without compression (PNG is compressed already): local headers, the central
// directory, the end record; names in UTF-8.
const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// Little-endian fields [offset, value, bytes] into a new record of the given length.
function record(length, fields) {
  const view = new DataView(new ArrayBuffer(length));
  fields.forEach(([at, value, size]) => (size === 2 ? view.setUint16(at, value, true)
                                                    : view.setUint32(at, value, true)));
  return new Uint8Array(view.buffer);
}

export function zip(files) {
  const parts = [], central = [];
  let offset = 0;
  for (const [name, data] of files) {
    const path = encode(name), crc = crc32(data);
    // version 2.0, UTF-8 names, stored, dated 1980-01-01
    const common = [[0x0800, 2], [0, 2], [0, 2], [0x21, 2], [crc, 4], [data.length, 4],
                    [data.length, 4], [path.length, 2], [0, 2]];
    parts.push(record(30, [[0, 0x04034b50, 4], [4, 20, 2],
                           ...common.map(([v, size], i) => [6 + offsetOf(common, i), v, size])]),
               path, data);
    central.push(record(46, [[0, 0x02014b50, 4], [4, 20, 2], [6, 20, 2],
                             ...common.map(([v, size], i) => [8 + offsetOf(common, i), v, size]),
                             [42, offset, 4]]), path);
    offset += 30 + path.length + data.length;
  }
  const size = central.reduce((n, part) => n + part.length, 0);
  const end = record(22, [[0, 0x06054b50, 4], [8, files.length, 2], [10, files.length, 2],
                          [12, size, 4], [16, offset, 4]]);
  return new Blob([...parts, ...central, end], { type: "application/zip" });
}

// Where the i-th of a run of consecutive fields starts, counted from the first.
const offsetOf = (fields, i) => fields.slice(0, i).reduce((n, [, size]) => n + size, 0);

export async function chartFiles(gd) {
  const name = gd.dataset.name;
  const csvs = tables(gd), npys = arrays(gd);
  return [
    [`${name}.png`, await image(gd, "png")],
    [`${name}.svg`, await image(gd, "svg")],
    ...csvs.map((csv, i) => [numbered(gd, name, i, csvs.length, "csv"), encode(csv)]),
    ...npys.map((bytes, i) => [numbered(gd, name, i, npys.length, "npy"), bytes]),
  ];
}
