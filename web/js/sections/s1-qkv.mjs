// Section 1: one word, three roles. A word's vector x is multiplied by three
// matrices and becomes a query (what it asks for), a key (what it is compared
// by) and a value (what it hands over). The SVG figure is drawn here with labels
// from the text file; the three vectors of the chosen word come from the engine.
//
// data-testid hooks:
//   s1-figure      the <svg> (role=img, labelled by its <title>)
//   s1-word        word selector
//   s1-q, s1-k, s1-v   the vectors shown in the figure (<text> elements)
//   s1-roles       the list of the three roles
//   s1-status      engine error for this section
// URL state (s1.*): word (0–3).

import { exampleWords, DEFAULT, project, row } from '../lesson/worked-example.mjs';
import { select, controlRow } from '../widgets/controls.mjs';
import { el, prose } from '../dom.mjs';

const SVG = 'http://www.w3.org/2000/svg';

function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text != null) e.textContent = text;
  return e;
}

export async function mount(root, ctx) {
  const { t, tNode, fmt, state, engine } = ctx;
  const { P } = prose(ctx);
  // SVG text has no isolates: a left-to-right mark after each number keeps Arabic-Indic
  // digits (bidi class AN) from turning "[١, ٢]" into an RTL run.
  const vecText = (arr) => `[${arr.map((v) => `${fmt(v, { maximumFractionDigits: 2 })}\u200e`).join(', ')}]`;

  root.append(P('s1.intro'), P('s1.analogy'));

  // ---------------------------------------------------------------- roles list
  const roles = el('dl', 's1-roles');
  roles.dataset.testid = 's1-roles';
  for (const r of ['q', 'k', 'v']) {
    // <div> groups inside <dl> are valid HTML and let each role be a card
    roles.append(el('div', `s1-role ${r}`, el('dt', null, tNode(`s1.role.${r}.name`)), el('dd', null, tNode(`s1.role.${r}.text`))));
  }

  // ---------------------------------------------------------------- figure
  const svg = svgEl('svg', { viewBox: '0 0 660 330', role: 'img', 'aria-labelledby': 's1-fig-title s1-fig-desc' });
  svg.dataset.testid = 's1-figure';
  const title = svgEl('title', { id: 's1-fig-title' }, t('s1.figTitle'));
  const desc = svgEl('desc', { id: 's1-fig-desc' }, t('s1.figDesc'));
  svg.append(title, desc);
  const defs = svgEl('defs');
  const marker = svgEl('marker', { id: 's1-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.append(svgEl('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#4a5360' }));
  defs.append(marker);
  svg.append(defs);

  // Two layouts: side by side (wide) and stacked (phones); both redrawn on resize.
  const colours = { q: '#0b57d0', k: '#8b2398', v: '#1e6b34' };
  const english = { q: 'query', k: 'key', v: 'value' };
  let wordText, xText, vecTexts = {}, drawn = null;
  const wLabel = (r, attrs) => {
    const wl = svgEl('text', { direction: 'ltr', 'font-size': 15, 'font-style': 'italic', ...attrs }, '× W');
    wl.append(svgEl('tspan', { 'baseline-shift': 'sub', 'font-size': 11 }, r.toUpperCase()));
    return wl;
  };
  const roleBox = (r, x, y, w, h, rows) => {
    const cx = x + w / 2;
    svg.append(svgEl('rect', { x, y, width: w, height: h, rx: 10, fill: '#fff', stroke: colours[r], 'stroke-width': 2.5 }));
    svg.append(svgEl('text', { x: cx, y: y + rows[0], 'text-anchor': 'middle', 'font-weight': 700, 'font-size': 18, fill: colours[r] }, t(`s1.fig.${r}.name`)));
    svg.append(svgEl('text', { x: cx, y: y + rows[1], 'text-anchor': 'middle', direction: 'ltr', class: 'ltr-label', 'font-size': 13, fill: '#4a5360' }, english[r]));
    svg.append(svgEl('text', { x: cx, y: y + rows[2], 'text-anchor': 'middle', 'font-size': 15 }, t(`s1.fig.${r}.role`)));
    const vt = svgEl('text', { x: cx, y: y + rows[3], 'text-anchor': 'middle', 'font-size': 17, 'font-weight': 700, direction: 'ltr', class: 'ltr-label' });
    vt.dataset.testid = `s1-${r}`;
    vecTexts[r] = vt;
    svg.append(vt);
  };

  function layout(narrow) {
    if (drawn === narrow) return;
    drawn = narrow;
    for (const n of [...svg.childNodes]) if (!['title', 'desc', 'defs'].includes(n.nodeName)) n.remove();
    vecTexts = {};
    const W = narrow ? 340 : 660;
    const H = narrow ? 470 : 330;
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    // the word box (top centre)
    svg.append(svgEl('rect', { x: W / 2 - 110, y: 14, width: 220, height: 74, rx: 10, fill: '#fff', stroke: '#1b1f24', 'stroke-width': 1.5 }));
    wordText = svgEl('text', { x: W / 2, y: 44, 'text-anchor': 'middle', 'font-weight': 700, 'font-size': 20, direction: 'ltr', class: 'ltr-label' });
    xText = svgEl('text', { x: W / 2, y: 72, 'text-anchor': 'middle', direction: 'ltr', class: 'ltr-label' });
    svg.append(wordText, xText);
    if (!narrow) {
      // three role boxes in reading order, right to left: query, key, value
      const centres = { q: W - 112, k: W / 2, v: 112 };
      for (const r of ['q', 'k', 'v']) {
        const cx = centres[r];
        svg.append(svgEl('line', { x1: W / 2, y1: 88, x2: cx, y2: 168, stroke: '#4a5360', 'stroke-width': 1.6, 'marker-end': 'url(#s1-arrow)' }));
        const mx = (W / 2 + cx) / 2 + (r === 'k' ? 0 : (r === 'q' ? 22 : -22)), my = 128;
        svg.append(svgEl('rect', { x: mx - 30, y: my - 14, width: 60, height: 24, rx: 4, fill: '#fbfaf7' }));
        svg.append(wLabel(r, { x: mx, y: my + 4, 'text-anchor': 'middle' }));
        roleBox(r, cx - 100, 170, 200, 146, [30, 54, 84, 120]);
      }
    } else {
      // stacked: a trunk on the right (the reading side) branches into each box
      const trunk = W - 12;
      svg.append(svgEl('polyline', { points: `${W / 2 + 110},51 ${trunk},51 ${trunk},${110 + 2 * 124 + 50}`, fill: 'none', stroke: '#4a5360', 'stroke-width': 1.6 }));
      ['q', 'k', 'v'].forEach((r, i) => {
        const y = 104 + i * 124;
        svg.append(svgEl('line', { x1: trunk, y1: y + 56, x2: W - 38, y2: y + 56, stroke: '#4a5360', 'stroke-width': 1.6, 'marker-end': 'url(#s1-arrow)' }));
        roleBox(r, 12, y, W - 50, 112, [26, 46, 72, 100]);
        svg.append(wLabel(r, { x: 24, y: y + 26, 'text-anchor': 'start' }));
      });
    }
    draw();
  }
  const fig = el('figure', 'qkv-figure', svg);
  const cap = el('figcaption', null, tNode('s1.figCaption'));
  fig.append(cap);

  const wordSel = select(ctx, {
    label: 's1.wordLabel',
    options: exampleWords(ctx.lang).map((w, i) => ({ value: i, label: w })),
    value: Math.min(3, Math.max(0, state.get('word', 2))),
    testid: 's1-word',
    onChange: (i) => { state.set('word', i === 2 ? null : i); draw(); },
  });
  const status = el('div');
  status.dataset.testid = 's1-status';
  status.setAttribute('aria-live', 'polite');
  root.append(controlRow(wordSel), fig, status, roles, P('s1.sameWord'), P('s1.why'));
  let proj = null;
  const narrowNow = () => (fig.clientWidth || root.clientWidth || 660) < 520;
  layout(narrowNow());
  if (typeof ResizeObserver !== 'undefined') new ResizeObserver(() => layout(narrowNow())).observe(fig);

  // ---------------------------------------------------------------- engine
  try {
    const [Q, K, V] = await Promise.all([
      project(engine, DEFAULT.x, DEFAULT.Wq), project(engine, DEFAULT.x, DEFAULT.Wk), project(engine, DEFAULT.x, DEFAULT.Wv),
    ]);
    proj = { Q, K, V };
  } catch (err) {
    ctx.showError(status, err);
  }

  function draw() {
    if (!wordText) return;
    const i = Number(wordSel.value);
    wordText.textContent = exampleWords(ctx.lang)[i];
    xText.textContent = `x = ${vecText(row(DEFAULT.x, i))}`;
    if (!proj) { for (const r of ['q', 'k', 'v']) vecTexts[r].textContent = '…'; return; }
    vecTexts.q.textContent = `q = ${vecText(row(proj.Q, i))}`;
    vecTexts.k.textContent = `k = ${vecText(row(proj.K, i))}`;
    vecTexts.v.textContent = `v = ${vecText(row(proj.V, i))}`;
  }
  draw();
}
