// How chapter 13 writes what its parts show: percentages with fixed decimals, plain numbers, a
// paragraph from a text key, a character as a visible glyph (with its spoken name for space,
// half-space and newline), and a head's name.
//
//   modelFormat(ctx) → {pct(x, d = 1), num(x, d = 2), P(key, params), shown(ch), spoken(ch), chip(ch),
//                       headName(l, h)}   (l, h: 0-based; the name counts from 1)

import { h } from '../dom.mjs';
import { glyph, ZWNJ, SPACE } from './model-compute.mjs';

export function modelFormat(ctx) {
  const { fmt, tNode } = ctx;
  // fixed decimals: «۶٫۰٪» next to «۷٫۴٪», as the lesson writes its tables
  const pct = (x, d = 1) => ctx.pct(x, { minimumFractionDigits: d, maximumFractionDigits: d });
  const num = (x, d = 2) => fmt(x, { maximumFractionDigits: d });
  const P = (key, params) => h('p', {}, tNode(key, params));

  // a character as the page shows it: a visible glyph; its spoken name for space, half-space, newline
  const NAMES = { [SPACE]: 'model.name.space', [ZWNJ]: 'model.name.zwnj', '\n': 'model.name.newline' };
  const shown = (ch) => glyph(ch);
  const spoken = (ch) => (NAMES[ch] ? ctx.t(NAMES[ch]) : glyph(ch));
  const chip = (ch) => h('span', { class: 'model-glyph', 'aria-label': spoken(ch), role: 'img' }, shown(ch));
  const headName = (l, hd) => ctx.t('model.headName', { l: fmt(l + 1), h: fmt(hd + 1) });
  return { pct, num, P, shown, spoken, chip, headName };
}
