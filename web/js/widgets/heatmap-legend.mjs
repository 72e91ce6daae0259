// A heatmap's colour bar: the palette between its two end values (LTR, low on the left), and a
// grey "masked" legend shown only while some cell is not finite.
//
//   createLegend(ctx, opts, lut, digits) → {el, show(lo, hi, data)}
//     opts: the heatmap's (maskLegend: text key of the grey legend, default site.maskedCell)

import { numberForms } from './cell-number.mjs';

const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };

export function createLegend(ctx, opts, lut, digits) {
  const legend = document.createElement('div');
  legend.className = 'heatmap-legend';
  const legLo = document.createElement('span');
  const legBar = document.createElement('canvas');
  legBar.className = 'heatmap-legend-bar';
  legBar.width = 128; legBar.height = 10;
  legBar.setAttribute('aria-hidden', 'true');
  const legHi = document.createElement('span');
  const legMask = document.createElement('span');
  legMask.className = 'heatmap-legend-mask';
  legMask.hidden = true;
  const legendBox = document.createElement('span');
  legendBox.className = 'heatmap-legend-ltr';
  legendBox.dir = 'ltr';
  legendBox.append(legLo, legBar, legHi);
  legend.append(legendBox, legMask);
  {
    const g = legBar.getContext('2d');
    if (g) for (let x = 0; x < 128; x++) {
      const k = Math.round((x / 127) * 255) * 3;
      g.fillStyle = `rgb(${lut[k]},${lut[k + 1]},${lut[k + 2]})`;
      g.fillRect(x, 0, 1, 10);
    }
  }

  // A colour-bar end: the value as in the table when it is short, else 3 significant digits
  // × 10 to a power (a "۱٫۲۷×۱۰⁹" beside the bar instead of thirteen digits pushing it away).
  function setEnd(node, v) {
    const forms = numberForms(v, ctx.fmt, digits);
    const f = forms[0].text.length <= 9 ? forms[0] : (forms.find((x) => x.sup) || forms[forms.length - 1]);
    const key = `${f.text}^${f.sup}`;
    if (node.dataset.shown === key) return;
    node.dataset.shown = key;
    node.textContent = f.text;
    if (f.sup) { const sup = document.createElement('sup'); sup.textContent = f.sup; node.append(sup); }
  }

  function show(lo, hi, data) {
    // (written only when changed: a new text node would make the next canvas font read
    // recompute the page's styles in the middle of a redraw)
    setEnd(legLo, lo);
    setEnd(legHi, hi);
    let anyMasked = false;
    for (const v of data) if (!Number.isFinite(v)) { anyMasked = true; break; }
    legMask.hidden = !anyMasked;
    // (a map whose non-finite cells are not masked, e.g. zero influence on a log scale, names them itself)
    setText(legMask, anyMasked ? ctx.t(opts.maskLegend || 'site.maskedCell') : '');
  }

  return { el: legend, show };
}
