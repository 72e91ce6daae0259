// Chapter 10: several heads, and grouped-query attention (issue 15).
// Part 1 says why a layer has several heads; part 2 runs the/cat/sat/down through two
// heads (each its own editable W_Q, W_K, W_V; an editable W_O after the concatenation);
// part 3 shares key/value heads among query heads (H_kv among the divisors of H_q = 8)
// on a seeded sequence and shows the grouping, the K/V bytes and the output's change
// against multi-head attention; part 4 counts parameters. Every number: heads-compute.mjs.
//
// URL state (section heads): wq1 wk1 wv1 wq2 wk2 wv2 wo (matrices, only when edited),
//   hkv (8 | 4 | 2 | 1, default 2), seed (0…1e9, default 1).
// data-testid hooks:
//   heads-wq1 … heads-wv2, heads-wo   matrix editors (cells `${id}-r{i}c{j}`, message `${id}-msg`)
//   heads-w1, heads-w2                 weights heatmaps of head 1 and 2
//   heads-out1, heads-out2             each head's output (tables)
//   heads-concat, heads-final          the concatenation and concat·W_O (tables)
//   heads-ex-live                      what row "sat" looks at in each head (data-k1, data-k2)
//   heads-hkv (select), heads-seed (text input, error in heads-seed-error)
//   heads-groups                       the grouping drawing (svg; data-hkv)
//   heads-gqa-live                     the readout (data-hkv, data-bytes-token, data-bytes-seq,
//                                      data-max-abs, data-rel)
//   heads-gqa-table                    every divisor at once (data-hkv on each <tr>)
//   heads-params                       the parameter counts (data-h1, data-h8, data-gqa)
//   heads-status                       engine error for this section (empty when fine)

import { exampleWords, tokenShown, DEFAULT } from '../lesson/worked-example.mjs';
import {
  HEAD_DEFAULTS, WO_DEFAULT, computeTwoHeads, computeGqaTable, divisors, groupsOf, attentionParams,
} from './heads-compute.mjs';
import { createMatrixEditor } from '../widgets/matrix-editor.mjs';
import { createHeatmap } from '../widgets/heatmap.mjs';
import { matrixView } from '../widgets/matrix-view.mjs';
import { select, intField, controlRow } from '../widgets/controls.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { cite } from '../lesson/references.mjs';
import { h, el, prose, setT, serial } from '../dom.mjs';

// the experiment's fixed sizes (the text names them through placeholders)
const N = 12, HQ = 8, DK = 8;
const PARAM_D = 512;   // d_model of the original Transformer (vaswani2017), for the parameter count
const SVG = 'http://www.w3.org/2000/svg';
// one colour per group: the Okabe–Ito palette (told apart with colour-blindness) as the
// outline, a pale tint of it as the fill so the dark head numbers stay readable
const GROUP_LINE = ['#E69F00', '#56B4E9', '#009E73', '#B8A800', '#0072B2', '#D55E00', '#CC79A7', '#777777'];
const GROUP_FILL = ['#FCE6BF', '#D5ECFA', '#BFE7DA', '#F7F1B5', '#BFDCF0', '#F5D2BF', '#F2DAE8', '#E4E4E4'];

const sameMatrix = (a, b) => a.rows === b.rows && a.cols === b.cols && a.data.every((v, i) => v === b.data[i]);

export async function mount(root, ctx) {
  const { engine, state, fmt, tNode } = ctx;
  const { P, H3 } = prose(ctx);
  const okInt = (v, lo, hi, d) => (Number.isInteger(v) && v >= lo && v <= hi ? v : d);
  const hkvChoices = divisors(HQ);
  const st = {
    hkv: hkvChoices.includes(state.get('hkv', 2)) ? state.get('hkv', 2) : 2,
    seed: okInt(state.get('seed', 1), 0, 1e9, 1),
  };
  const num = (x, d = 2) => fmt(x, { maximumFractionDigits: d });
  const WORDS = exampleWords(ctx.lang);   // the example's tokens in the reader's script
  const word = (i) => tokenShown(WORDS[i], (w) => ctx.ltrExpr(w, 'ltr'));

  const status = h('p', { class: 'status-line', testid: 'heads-status', 'aria-live': 'polite' });

  // ---------------------------------------------------------------- 1. why several heads
  root.append(h('p', { class: 'lead' }, tNode('heads.lead')));
  root.append(H3('heads.why.title'), h('p', {}, tNode('heads.why.p1'), ' ', cite(ctx, 'vaswani2017')),
    P('heads.why.p3', { dmodel: fmt(PARAM_D), h: fmt(8), dk: fmt(PARAM_D / 8) }));

  // ---------------------------------------------------------------- 2. two heads on the worked example
  root.append(H3('heads.ex.title'), P('heads.ex.p1'), el('p', 'note', tNode('heads.ex.editHint')));
  const editors = {};
  const editor = (key, label, def, testid) => {
    const value = state.getMatrix(key, def);
    const ed = createMatrixEditor(ctx, {
      label, value: value.rows === def.rows && value.cols === def.cols ? value : def, testid, min: -100, max: 100,
    });
    ed.setDefault(def);
    ed.addEventListener('change', (e) => {
      state.setMatrix(key, sameMatrix(e.detail.matrix, def) ? null : e.detail.matrix);
      refreshExample();
    });
    editors[key] = ed;
    return ed.el;
  };
  const colLabels = (k) => Array.from({ length: k }, (_, i) => fmt(i + 1));
  const headViews = [];
  for (const hd of [1, 2]) {
    const def = HEAD_DEFAULTS[hd - 1];
    const params = { h: fmt(hd) };
    const box = el('div', 's2-editors',
      editor(`wq${hd}`, tNode('heads.ex.wq', params), def.Wq, `heads-wq${hd}`),
      editor(`wk${hd}`, tNode('heads.ex.wk', params), def.Wk, `heads-wk${hd}`),
      editor(`wv${hd}`, tNode('heads.ex.wv', params), def.Wv, `heads-wv${hd}`));
    const hm = createHeatmap(ctx, {
      label: tNode('heads.ex.weightsLabel', params), rowLabels: WORDS, colLabels: WORDS,
      rowTitle: 's2.queries', colTitle: 's2.keys', min: 0, max: 1, digits: 2,
      testid: `heads-w${hd}`, exportName: `head${hd}-weights`, maxCell: 56,
    });
    // fixed decimals: «۱٫۰۰» next to «۰٫۷۸», as s2 writes its matrices (walkthrough fa #15)
    const out = matrixView(ctx, { caption: tNode('heads.ex.outCaption', params), rowLabels: WORDS, fixed: true, testid: `heads-out${hd}` });
    headViews.push({ hm, out });
    root.append(h('h4', {}, tNode('heads.ex.headTitle', params)), P(hd === 1 ? 'heads.ex.head1' : 'heads.ex.head2'),
      box, h('div', { class: 'experiment-result' }, hm.el, out.el));
  }
  const exLive = h('p', { class: 'callout', testid: 'heads-ex-live' });
  root.append(exLive);

  // concatenation and W_O
  root.append(H3('heads.cat.title'), P('heads.cat.p1'));
  const concatView = matrixView(ctx, { caption: 'heads.cat.concatCaption', rowLabels: WORDS, fixed: true, testid: 'heads-concat' });
  const finalView = matrixView(ctx, { caption: 'heads.cat.finalCaption', rowLabels: WORDS, fixed: true, testid: 'heads-final' });
  root.append(el('div', 'matrices', concatView.el, editor('wo', 'heads.cat.woLabel', WO_DEFAULT, 'heads-wo'), finalView.el),
    P('heads.cat.p2'));
  root.append(status);

  // ---------------------------------------------------------------- 3. grouped-query attention
  root.append(H3('heads.gqa.title'),
    h('p', {}, tNode('heads.gqa.p1'), ' ', cite(ctx, 'shazeer2019')),
    h('p', {}, tNode('heads.gqa.p2'), ' ', cite(ctx, 'ainslie2023')),
    P('heads.gqa.setup', { n: fmt(N), hq: fmt(HQ), dk: fmt(DK) }));
  const hkvCtl = select(ctx, {
    label: 'heads.ctl.hkv', testid: 'heads-hkv', value: st.hkv,
    options: hkvChoices.map((v) => ({
      value: v, label: v === HQ ? 'heads.opt.mha' : v === 1 ? 'heads.opt.mqa' : 'heads.opt.gqa',
      params: { hkv: v, g: HQ / v },
    })),
    onChange: (v) => { st.hkv = v; state.set('hkv', v); render(); },
  });
  const seedCtl = intField(ctx, {
    label: 'heads.ctl.seed', value: st.seed, min: 0, max: 1e9, errKey: 'heads.err.seed', testid: 'heads-seed',
    explain: true, onChange: (v) => { st.seed = v; state.set('seed', v); refreshGqa(); },
  });
  const groupsFig = h('figure', { class: 'heads-groups' });
  const gqaLive = h('p', { testid: 'heads-gqa-live' });
  const gqaDiff = h('p', {});
  const tableSlot = h('div', {});
  root.append(h('div', { class: 'experiment-panel' }, controlRow(hkvCtl, seedCtl)),
    groupsFig, h('div', { class: 'readouts' }, gqaLive, gqaDiff), P('heads.gqa.why'),
    h('h4', {}, tNode('heads.table.title')), tableSlot,
    h('p', {}, tNode('heads.gqa.trade', { hq: fmt(HQ) }), ' ', cite(ctx, 'jiang2023')));

  // ---------------------------------------------------------------- 4. parameters
  const params = h('p', { testid: 'heads-params' });
  root.append(H3('heads.params.title'), params, P('heads.params.p2'));
  {
    const p1 = attentionParams({ dModel: PARAM_D, hq: 1 });
    const p8 = attentionParams({ dModel: PARAM_D, hq: 8 });
    const g = attentionParams({ dModel: PARAM_D, hq: 8, hkv: 2 });
    setT(ctx, params, 'heads.params.p1', {
      dmodel: fmt(PARAM_D), dk1: fmt(p1.dk), dk8: fmt(p8.dk), p1: fmt(p1.total), p8: fmt(p8.total),
      gqa: fmt(g.total), hkv: fmt(2), hq8: fmt(8),
    });
    Object.assign(params.dataset, { h1: p1.total, h8: p8.total, gqa: g.total });
  }

  // ---------------------------------------------------------------- compute + render
  let ex = null;
  const refreshExample = serial(async () => {
    let r;
    try {
      r = await computeTwoHeads(engine, {
        x: DEFAULT.x, Wo: editors.wo.value,
        heads: [1, 2].map((hd) => ({ Wq: editors[`wq${hd}`].value, Wk: editors[`wk${hd}`].value, Wv: editors[`wv${hd}`].value })),
      });
    } catch (err) {
      ctx.showError(status, err);   // the last good result stays on screen
      return;
    }
    status.textContent = '';
    ex = r;
    r.heads.forEach((hd, i) => {
      headViews[i].hm.update(hd.weights);
      headViews[i].out.update(hd.out);
    });
    concatView.update(r.concat);
    finalView.update(r.final);
    // row 3 ("sat"): the key each head weighs most (with the defaults: itself in head 1, "the" in head 2)
    const R = 2;
    const best = (w) => { let b = 0; for (let j = 1; j < w.cols; j++) if (w.data[R * w.cols + j] > w.data[R * w.cols + b]) b = j; return b; };
    const [k1, k2] = r.heads.map((hd) => best(hd.weights));
    setT(ctx, exLive, k1 === k2 ? 'heads.ex.liveSame' : 'heads.ex.live', {
      k1: word(k1), w1: ctx.pct(r.heads[0].weights.data[R * 4 + k1], { maximumFractionDigits: 0 }),
      k2: word(k2), w2: ctx.pct(r.heads[1].weights.data[R * 4 + k2], { maximumFractionDigits: 0 }),
    });
    Object.assign(exLive.dataset, { k1, k2 });
  });

  let table = null;      // rows of computeGqaTable for the current seed
  const refreshGqa = serial(async () => {
    try {
      table = await computeGqaTable(engine, { n: N, hq: HQ, dk: DK, seed: st.seed });
    } catch (err) {
      ctx.showError(status, err);
      return;
    }
    status.textContent = '';
    render();
  });

  function drawGroups(hkv) {
    const W = 360, box = 34, gap = (W - HQ * box) / (HQ + 1);
    const svg = document.createElementNS(SVG, 'svg');
    const attrs = (e, a) => { for (const [k, v] of Object.entries(a)) e.setAttribute(k, String(v)); return e; };
    attrs(svg, { viewBox: `0 0 ${W} 150`, width: '100%', role: 'img', 'data-testid': 'heads-groups', 'data-hkv': hkv,
      'font-size': 15, 'aria-label': ctx.t('heads.groups.label', { hkv: fmt(hkv), hq: fmt(HQ), g: fmt(HQ / hkv) }) });
    svg.style.maxWidth = '30rem';   // CSSOM (allowed by the CSP): no wider than it needs on a desktop
    const xq = (i) => gap + i * (box + gap);
    const kvW = Math.min(W - 2 * gap, (HQ / hkv) * (box + gap) - gap);
    const groups = groupsOf(HQ, hkv);
    const xkv = (g) => { const first = xq(groups[g][0]), last = xq(groups[g].at(-1)) + box; return (first + last) / 2 - Math.min(kvW, last - first) / 2; };
    const text = (x, y, s) => { const t = attrs(document.createElementNS(SVG, 'text'), { x, y, 'text-anchor': 'middle', fill: '#1a1a1a', 'aria-hidden': 'true' }); t.textContent = s; return t; };
    groups.forEach((qs, g) => {
      const kx = xkv(g), kw = Math.min(kvW, xq(qs.at(-1)) + box - xq(qs[0]));
      for (const q of qs) {
        svg.append(attrs(document.createElementNS(SVG, 'line'), { x1: xq(q) + box / 2, y1: 52, x2: kx + kw / 2, y2: 100, stroke: GROUP_LINE[g % 8], 'stroke-width': 2 }));
        svg.append(attrs(document.createElementNS(SVG, 'rect'), { x: xq(q), y: 18, width: box, height: 34, rx: 4, fill: GROUP_FILL[g % 8], stroke: GROUP_LINE[g % 8], 'stroke-width': 2 }));
        svg.append(text(xq(q) + box / 2, 41, ctx.localize(String(q + 1))));
      }
      svg.append(attrs(document.createElementNS(SVG, 'rect'), { x: kx, y: 100, width: kw, height: 34, rx: 4, fill: GROUP_FILL[g % 8], stroke: GROUP_LINE[g % 8], 'stroke-width': 2 }));
      svg.append(text(kx + kw / 2, 123, ctx.localize(String(g + 1))));
    });
    groupsFig.textContent = '';
    const cap = h('figcaption', { class: 'note' }, tNode('heads.groups.caption'));
    // row labels of the drawing, in words (the picture itself has only numbers)
    const legend = h('p', { class: 'note' }, tNode('heads.groups.legend'));
    groupsFig.append(legend, svg, cap);
  }

  function render() {
    if (!table) return;
    const r = table.find((x) => x.hkv === st.hkv);
    const mha = table[0];
    drawGroups(st.hkv);
    setT(ctx, gqaLive, st.hkv === HQ ? 'heads.gqa.liveMha' : 'heads.gqa.live', {
      hkv: fmt(st.hkv), g: fmt(r.group), hq: fmt(HQ), n: fmt(N),
      tok: ctx.fmtBytes(r.kvBytesToken), seq: ctx.fmtBytes(r.kvBytesSeq), mhaSeq: ctx.fmtBytes(mha.kvBytesSeq),
      ratio: fmt(mha.kvBytesSeq / r.kvBytesSeq),
    });
    Object.assign(gqaLive.dataset, { hkv: st.hkv, bytesToken: r.kvBytesToken, bytesSeq: r.kvBytesSeq, maxAbs: r.maxAbs, rel: r.rel });
    setT(ctx, gqaDiff, st.hkv === HQ ? 'heads.gqa.diffZero' : 'heads.gqa.diff', {
      max: num(r.maxAbs, 3), rel: ctx.pct(r.rel, { maximumFractionDigits: 1 }),
    });
    tableSlot.textContent = '';
    const wrap = simpleTable(ctx, {
      caption: tNode('heads.table.caption', { seed: fmt(st.seed) }),
      headers: ['heads.col.hkv', 'heads.col.group', 'heads.col.tok', 'heads.col.seq', 'heads.col.max', 'heads.col.rel'],
      rows: table.map((x) => [fmt(x.hkv), fmt(x.group), ctx.fmtBytes(x.kvBytesToken), ctx.fmtBytes(x.kvBytesSeq),
        num(x.maxAbs, 3), ctx.pct(x.rel, { maximumFractionDigits: 1 })]),
      testid: 'heads-gqa-table', stack: true,
    });
    wrap.querySelectorAll('tbody tr').forEach((tr, i) => {
      tr.dataset.hkv = String(table[i].hkv);
      if (table[i].hkv === st.hkv) tr.setAttribute('aria-current', 'true');
    });
    tableSlot.append(wrap);
  }

  // a language switch or another tab may change the shared keys
  window.addEventListener('statechange', () => {
    if (!hkvCtl.input.isConnected) return;   // this section was built again (a recompute after a crash)
    const v = state.get('hkv', 2);
    if (hkvChoices.includes(v) && v !== st.hkv) { st.hkv = v; hkvCtl.value = v; render(); }
  });

  await Promise.all([refreshExample(), refreshGqa()]);
}
