// The heatmap's colour scale: a value between lo and hi → one of 256 colours of a colour-blind-safe
// palette (viridis or cividis), grey for a masked (non-finite) cell, and whether a number written
// on a colour needs white ink. No DOM here.
//
//   makeLut(name) → Uint8Array(256 × 3): r, g, b of colour k at 3k
//   colourRange(data, opts) → {lo, hi}   opts.min / opts.max when given, else the finite data's
//   colourIndex(v, lo, hi) → 0…255
//   darkColour(lut, k) → true when white ink reads better on colour k

export const PALETTES = {
  viridis: ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725'],
  cividis: ['#00224e', '#123570', '#3b496c', '#575d6d', '#707173', '#8a8779', '#a69d75', '#c4b56c', '#e4cf5b', '#fee838'],
};
export const MASKED = [222, 222, 222];

function hexToRgb(h) {
  const n = parseInt(h.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export function makeLut(name) {
  const stops = (PALETTES[name] || PALETTES.viridis).map(hexToRgb);
  const lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const x = (i / 255) * (stops.length - 1);
    const a = Math.min(stops.length - 2, Math.floor(x));
    const f = x - a;
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = Math.round(stops[a][c] * (1 - f) + stops[a + 1][c] * f);
  }
  return lut;
}

function luminance(r, g, b) {
  const l = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * l(r) + 0.7152 * l(g) + 0.0722 * l(b);
}

export const darkColour = (lut, k) => luminance(lut[k * 3], lut[k * 3 + 1], lut[k * 3 + 2]) < 0.3;

// Both ends fixed by the caller are kept as given; otherwise the finite data fills in the
// missing end(s), and a flat matrix gets a range of 1 so that it still has a colour.
export function colourRange(data, opts) {
  if (opts.min != null && opts.max != null) return { lo: opts.min, hi: opts.max };
  let a = Infinity, b = -Infinity;
  for (const v of data) if (Number.isFinite(v)) { if (v < a) a = v; if (v > b) b = v; }
  if (!Number.isFinite(a)) { a = 0; b = 1; }
  const lo = opts.min ?? a;
  let hi = opts.max ?? b;
  if (hi === lo) hi = lo + 1;
  return { lo, hi };
}

export const colourIndex = (v, lo, hi) => Math.max(0, Math.min(255, Math.round(((v - lo) / (hi - lo)) * 255)));
