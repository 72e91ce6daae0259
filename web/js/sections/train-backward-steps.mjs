// Chapter 14, part 3: the backward pass of attention stepped through tile by tile on a small
// example (train-backward.mjs computes it with the engine): what the forward kept (the
// log-sum-exp of each row), then one key tile at a time its P and dS and the dQ, dK, dV so far,
// ending equal to the materialized backward; and the bytes each way keeps.
// URL state (section train): bstep (0…tiles). data-testid hooks: train-bk-prev, train-bk-next,
// train-bk-reset, train-bk-step (data-step, data-steps), train-bk-explain, train-bk-dq,
// train-bk-dk, train-bk-dv (heatmaps), train-bk-diff (data-diff), train-bk-bytes.

import { createHeatmap } from '../widgets/heatmap.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { h, setT } from '../dom.mjs';
import { intIn } from '../state.mjs';
import { cite } from '../lesson/references.mjs';
import { backwardExample, keptBytes, EXAMPLE } from './train-backward.mjs';

export async function mountBackwardSteps(root, ctx) {
  const { state, fmt } = ctx;
  const num = (x, d = 3) => fmt(x, { minimumFractionDigits: d, maximumFractionDigits: d });
  const big = (x) => fmt(x, { maximumFractionDigits: 0 });
  const bk = await backwardExample(ctx.engine, 1);
  const steps = bk.steps.length;   // step 0: what the forward saved; 1…steps: one tile each
  const st = { bstep: intIn(state.get('bstep', 0), 0, steps, 0) };
  const bkBtn = (key, testid) => h('button', { type: 'button', class: 'btn btn-secondary', testid }, ctx.tNode(key));
  const bkReset = bkBtn('train.bk.reset', 'train-bk-reset'), bkPrev = bkBtn('train.bk.prev', 'train-bk-prev'), bkNext = bkBtn('train.bk.next', 'train-bk-next');
  const bkLabel = h('span', { class: 'step-label', testid: 'train-bk-step', 'aria-live': 'polite' });
  const bkExplain = h('div', { class: 'step-explain', testid: 'train-bk-explain', 'aria-live': 'polite' });
  const gMap = (key, testid) => createHeatmap(ctx, {
    label: key, rowTitle: 'train.bk.tokens', colTitle: 'train.bk.cols', digits: 2, palette: 'cividis', testid, exportName: testid, labelWidth: 24,
  });
  const mapQ = gMap('train.bk.dq', 'train-bk-dq'), mapK = gMap('train.bk.dk', 'train-bk-dk'), mapV = gMap('train.bk.dv', 'train-bk-dv');
  const diffLine = h('p', { testid: 'train-bk-diff' });
  const bytesLine = h('p', { testid: 'train-bk-bytes' });
  const bkFormula = h('div', { class: 'formula' });
  root.append(h('h3', {}, ctx.tNode('train.bk.title')), h('p', {}, ctx.tNode('train.bk.p1'), ' ', cite(ctx, 'dao2023')),
    bkFormula, h('p', {}, ctx.tNode('train.bk.p2', { n: big(EXAMPLE.n), d: big(EXAMPLE.d), b: big(EXAMPLE.block), tiles: big(steps) })),
    h('div', { class: 'stepper' }, bkReset, bkPrev, bkNext, bkLabel), bkExplain,
    h('div', { class: 'experiment-result kv-maps' }, mapQ.el, mapK.el, mapV.el), diffLine, bytesLine);
  for (const tex of ['P_{ij} = e^{\\,s_{ij} - L_i}', 'dS = P \\circ \\left(dO\\,V^{\\top} - D\\right)',
    'dQ = \\tfrac{1}{\\sqrt{d}}\\, dS\\, K,\\quad dK = \\tfrac{1}{\\sqrt{d}}\\, dS^{\\top} Q', 'dV = P^{\\top} dO'])
    bkFormula.append(ctx.renderMath(tex, { display: true }));

  const idx = (a, b) => Array.from({ length: b - a }, (_, i) => big(a + i + 1));
  const zeroLike = (m) => ({ rows: m.rows, cols: m.cols, data: new Float32Array(m.rows * m.cols) });
  const f32 = (m) => ({ rows: m.rows, cols: m.cols, data: Float32Array.from(m.data) });
  const tileTable = (caption, m, rows, cols) => simpleTable(ctx, {
    caption, headers: ['train.bk.corner', ...idx(cols[0], cols[1]).map((x) => h('span', {}, x))],   // Nodes: a string is a text key
    rows: Array.from({ length: m.rows }, (_, i) => [big(rows[0] + i + 1), ...Array.from({ length: m.cols }, (_, j) => num(m.data[i * m.cols + j]))]),
  });
  function renderBk() {
    const s = st.bstep;
    setT(ctx, bkLabel, 'train.bk.step', { s: big(s), last: big(steps) });
    bkLabel.dataset.step = String(s);
    bkLabel.dataset.steps = String(steps);
    for (const [b, off] of [[bkPrev, s === 0], [bkReset, s === 0], [bkNext, s === steps]]) {
      if (off) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
    }
    bkExplain.textContent = '';
    const labels = { rowLabels: idx(0, EXAMPLE.n), colLabels: idx(0, EXAMPLE.d) };
    if (s === 0) {
      bkExplain.append(h('p', {}, ctx.tNode('train.bk.saved', { lse: ctx.ltrExpr(`[${Array.from(bk.f.lse, (x) => num(x, 2)).join(', ')}]`) })));
      for (const [m, g] of [[mapQ, bk.whole.dQ], [mapK, bk.whole.dK], [mapV, bk.whole.dV]]) m.update(zeroLike(g), labels);
    } else {
      const t = bk.steps[s - 1];
      bkExplain.append(h('p', {}, ctx.tNode('train.bk.tile', {
        q1: big(t.rows[0] + 1), q2: big(t.rows[1]), k1: big(t.cols[0] + 1), k2: big(t.cols[1]),
      })), tileTable(ctx.tNode('train.bk.pTile'), t.P, t.rows, t.cols), tileTable(ctx.tNode('train.bk.dsTile'), t.dS, t.rows, t.cols));
      mapQ.update(f32(t.dQ), labels); mapK.update(f32(t.dK), labels); mapV.update(f32(t.dV), labels);
    }
    if (s === steps) {
      setT(ctx, diffLine, 'train.bk.diff', { diff: fmt(bk.diff, { maximumSignificantDigits: 2 }) });
      diffLine.dataset.diff = String(bk.diff);
    } else { diffLine.textContent = ''; delete diffLine.dataset.diff; }
  }
  const go = (k) => {
    const next = Math.max(0, Math.min(steps, k));
    if (next === st.bstep) return;
    st.bstep = next;
    state.set('bstep', next || null);
    renderBk();
  };
  bkReset.addEventListener('click', () => go(0));
  bkPrev.addEventListener('click', () => go(st.bstep - 1));
  bkNext.addEventListener('click', () => go(st.bstep + 1));
  renderBk();

  const [k6, k64, kLong] = await Promise.all([keptBytes(ctx.engine, EXAMPLE.n), keptBytes(ctx.engine, 64), keptBytes(ctx.engine, 8192)]);
  setT(ctx, bytesLine, 'train.bk.bytes', {
    n: big(EXAMPLE.n), lse6: ctx.fmtBytes(k6.chunked), p6: ctx.fmtBytes(k6.materialized),
    lse64: ctx.fmtBytes(k64.chunked), p64: ctx.fmtBytes(k64.materialized),
    lseL: ctx.fmtBytes(kLong.chunked), pL: ctx.fmtBytes(kLong.materialized),
  });
  root.append(h('p', {}, ctx.tNode('train.bk.p3')));
}
