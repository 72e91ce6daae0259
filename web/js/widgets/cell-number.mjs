// The form of a number drawn inside a heatmap cell: the most precise one that fits the cell.
// A cell is a picture of a value, not its record: when "۵۶٬۵۶۸٫۵۴" is wider than its cell,
// fewer decimals, then a mantissa with 3, 2 or 1 significant digits × 10 to a power, in the
// page's numerals. The exact value stays in the heatmap's table, tooltip and live region.
//
//   numberForms(v, fmt, digits) → [{text, sup}]   most precise first; sup: exponent text or ''
//   fitNumber(forms, measure, width) → the first form whose measured width ≤ width, or null
//     measure(form) → CSS px (the caller measures in its own font)
// fmt is ctx.fmt (Intl in the page language); no DOM here.

import { ltrNumber } from '../i18n/numerals.mjs';

export function numberForms(v, fmt, digits) {
  if (v === -Infinity) return [{ text: '−∞', sup: '' }];
  if (v === Infinity) return [{ text: '∞', sup: '' }];
  if (Number.isNaN(v)) return [{ text: '—', sup: '' }];
  const forms = [];
  for (let d = digits; d >= 0; d--) {
    forms.push({ text: ltrNumber(fmt(v, { minimumFractionDigits: d, maximumFractionDigits: d })), sup: '' });
  }
  const a = Math.abs(v);
  if (a >= 1) {
    for (const sig of [3, 2, 1]) {
      let e = Math.floor(Math.log10(a));
      let m = Number((v / 10 ** e).toPrecision(sig));
      if (Math.abs(m) >= 10) { m /= 10; e += 1; }   // 9.99 → 10.0 at 2 digits
      if (e < 3) continue;                          // "۱٫۲×۱۰²" says no more than "۱۲۰"
      // LRMs around ×: between two Arabic-Indic numbers (bidi class AN) a neutral resolves
      // right-to-left and "١٫٣×١٠" would show as "١٠×١٫٣" even in a left-to-right cell
      forms.push({ text: `${ltrNumber(fmt(m, { maximumSignificantDigits: sig }))}\u200e×\u200e${fmt(10)}`, sup: fmt(e) });
    }
  }
  return forms;
}

export function fitNumber(forms, measure, width) {
  for (const f of forms) if (measure(f) <= width) return f;
  return null;
}
