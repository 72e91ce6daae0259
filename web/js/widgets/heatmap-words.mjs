// How a heatmap names its cells in text (the data table, the tooltip, the live region and the
// canvas's axis labels): values with `digits` decimals in the page's numerals, labels in the
// reader's digits. The numbers drawn inside the cells are cell-number.mjs's.
//
//   cellWords(ctx, view, digits) → {fmtV(v), rowName(i), colName(j), cellText(i, j)}
//     view: the heatmap's state ({m, rowLabels, colLabels, valueAt}), read at each call

import { ltrNumber } from '../i18n/numerals.mjs';
import { pageDigits } from '../i18n/i18n.mjs';

export function cellWords(ctx, view, digits) {
  const fmtV = (v) => {
    if (v === -Infinity) return '−∞';
    if (v === Infinity) return '∞';
    if (Number.isNaN(v)) return '—';
    return ltrNumber(ctx.fmt(v, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  };
  // labels given as strings ("Q3") follow the reader's digits too, also after a switch
  const rowName = (i) => (view.rowLabels && view.rowLabels[i] != null ? pageDigits(view.rowLabels[i]) : ctx.fmt(i + 1));
  const colName = (j) => (view.colLabels && view.colLabels[j] != null ? pageDigits(view.colLabels[j]) : ctx.fmt(j + 1));
  // (a Latin label is isolated: "sat" before ":" and the value turned the tooltip's RTL line
  // into "ستون ۰٫۵۱ :sat")
  const iso = (name) => (/[A-Za-z]/.test(name) ? `\u2068${name}\u2069` : name);
  const cellText = (i, j) => ctx.t('site.cellValue', {
    row: iso(rowName(i)), col: iso(colName(j)), value: fmtV(view.valueAt(i, j)),
  });
  return { fmtV, rowName, colName, cellText };
}
