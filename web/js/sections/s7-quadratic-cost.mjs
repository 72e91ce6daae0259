// Section 7: the quadratic cost of holding the n×n score matrix. Every byte
// count is engine.scoreMatrixBytes (n²·bytes·heads·layers·batch, in double);
// pairs are scoreMatrixBytes with 1 byte per element. The calculator's exact
// count is the same product in BigInt (byte-sizes.mjs: a double loses the low
// digits past 2^53, the largest case is 2^72), checked against the engine's
// value; it is read in the largest decimal and binary unit it reaches (up to
// EB / EiB). Refused input says why (intField explain) and marks the result
// left on screen as stale until every field is valid again.
//
// URL state (section s7): n (1…4,194,304), dtype ('fp32' | 'fp16' | 'bf16'),
//   heads (1…256), layers (1…256), batch (1…1024).
// data-testid hooks:
//   s7-n, s7-heads, s7-layers, s7-batch (text inputs; errors in <id>-error), s7-dtype (select),
//   s7-calc (data-stale="true" while a field is refused), s7-stale (the stale note),
//   s7-result (data-bytes: the exact count, data-engine-bytes), s7-table (rows: n, pairs, MB, ratio), s7-table-note (data-mem-ratio),
//   s7-128k-dec, s7-128k-bin (data-bytes), s7-lin-chart, s7-lin-live, s7-status.

import { select, intField, controlRow } from '../widgets/controls.mjs';
import { createChart } from '../widgets/chart.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { h, setT, serial } from '../dom.mjs';
import { oneOf, intIn } from '../state.mjs';
import { scoreBytes, readable } from '../lesson/byte-sizes.mjs';

const TABLE_N = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];
// the URL's dtype values and their bytes per score (the options' labels: s7.calc.dtypeName.<value>)
export const DTYPES = { fp32: 4, fp16: 2, bf16: 2 };
const MB = 1e6, GB = 1e9, GIB = 2 ** 30;

export async function mount(root, ctx) {
  const { engine, state, fmt } = ctx;
  const st = {
    n: intIn(state.get('n', 8192), 1, 4194304, 8192),
    dtype: oneOf(DTYPES, state.get('dtype', 'fp16'), 'fp16'),
    heads: intIn(state.get('heads', 1), 1, 256, 1),
    layers: intIn(state.get('layers', 1), 1, 256, 1),
    batch: intIn(state.get('batch', 1), 1, 1024, 1),
  };
  const num = (x, d = 2) => fmt(x, { maximumFractionDigits: d });
  const big = (x) => fmt(x, { maximumFractionDigits: 0 });

  root.append(h('p', { class: 'lead' }, ctx.tNode('s7.lead')));

  // ---- calculator
  const status = h('p', { class: 'status-line', testid: 's7-status', 'aria-live': 'polite' });
  const staleNote = h('p', { class: 'stale-note', id: 's7-stale-note', testid: 's7-stale', 'aria-live': 'polite', hidden: true });
  const result = h('p', { class: 'big-result', testid: 's7-result' });
  // fields whose last input was refused: while any is, the result shown is for older values
  const refused = new Set();
  const markStale = () => {
    const stale = refused.size > 0;
    calcBox.dataset.stale = String(stale);
    calcBox.classList.toggle('is-stale', stale);
    staleNote.hidden = !stale;
    if (stale) { setT(ctx, staleNote, 's7.calc.stale'); result.setAttribute('aria-describedby', staleNote.id); }
    else { staleNote.textContent = ''; result.removeAttribute('aria-describedby'); }
  };
  const field = (key, label, max, errKey) => intField(ctx, {
    label, value: st[key], min: 1, max, errKey, testid: `s7-${key}`, explain: true,
    onValidity: (ok) => { if (ok) refused.delete(key); else refused.add(key); markStale(); },
    onChange: (v) => { st[key] = v; state.set(key, v); calc(); },
  });
  const nCtl = field('n', 's7.calc.n', 4194304, 's7.err.n');
  const dtypeCtl = select(ctx, {
    label: 's7.calc.dtype', value: st.dtype, testid: 's7-dtype',
    // the URL value stays fp32/fp16/bf16; the label uses the lesson's name (float32, float16, bfloat16).
    // The name key is `code`, so t() returns it isolated (LRI…PDI) and its digits stay Latin.
    options: Object.entries(DTYPES).map(([name, b]) => ({ value: name, label: ctx.t('s7.calc.dtypeOpt', { name: ctx.t(`s7.calc.dtypeName.${name}`), b: fmt(b) }) })),
    onChange: (v) => { st.dtype = v; state.set('dtype', v); calc(); },
  });
  const headsCtl = field('heads', 's7.calc.heads', 256, 's7.err.count');
  const layersCtl = field('layers', 's7.calc.layers', 256, 's7.err.count');
  const batchCtl = field('batch', 's7.calc.batch', 1024, 's7.err.count');
  const unitsP = h('p', { class: 'note' });
  const calcBox = h('div', { class: 'experiment-result stack calc-result', testid: 's7-calc', 'data-stale': 'false' },
    staleNote, result, h('p', { class: 'note' }, ctx.tNode('s7.calc.formula')), unitsP);
  root.append(h('h3', {}, ctx.tNode('s7.calc.title')),
    h('div', { class: 'experiment-panel' }, controlRow(nCtl, dtypeCtl, headsCtl, layersCtl, batchCtl), status),
    calcBox);

  const calc = serial(async () => {
    try {
      const args = { n: st.n, bytesPerElement: DTYPES[st.dtype], heads: st.heads, layers: st.layers, batch: st.batch };
      const engineBytes = await engine.scoreMatrixBytes(args);
      const bytes = scoreBytes(args);
      // the engine's double and the exact product agree to a double's precision
      if (Math.abs(Number(bytes) - engineBytes) > engineBytes * 2 ** -50) throw Object.assign(new Error(`s7: ${bytes} vs engine ${engineBytes}`), { code: 'Mismatch' });
      const inUnit = (system) => {
        const r = readable(bytes, system);
        return ctx.t(`site.unit.${r.unit}`, { n: fmt(r.value, { maximumFractionDigits: r.fractionDigits }) });
      };
      if (bytes < 1000n) setT(ctx, result, 's7.calc.resultSmall', { bytes: fmt(bytes) });
      else setT(ctx, result, 's7.calc.result', { bytes: fmt(bytes), dec: inUnit('decimal'), bin: inUnit('binary') });
      result.dataset.bytes = String(bytes);
      result.dataset.engineBytes = String(engineBytes);
      status.textContent = '';
    } catch (err) {
      setT(ctx, status, 's7.err.engine');
      status.dataset.code = (err && err.code) || 'Unknown';
    }
  });

  // ---- the table 512 … 131,072 (fp16, one head, one layer)
  const tableSlot = h('div', { class: 'table-slot' });
  const tableNote = h('p', { testid: 's7-table-note' });
  root.append(h('h3', {}, ctx.tNode('s7.table.title', { from: big(TABLE_N[0]), to: big(TABLE_N[TABLE_N.length - 1]) })),
    h('p', {}, ctx.tNode('s7.table.p')), tableSlot, tableNote);

  // ---- 128K: 128,000 or 131,072?
  const decP = h('li', { testid: 's7-128k-dec' });
  const binP = h('li', { testid: 's7-128k-bin' });
  const k128p = h('p');
  root.append(h('h3', {}, ctx.tNode('s7.k128.title')), k128p, h('ul', { class: 'calc-list' }, decP, binP), h('p', {}, ctx.tNode('s7.k128.p2')));

  // ---- linear vs quadratic
  const linChart = createChart(ctx, {
    title: ctx.tNode('s7.lin.chartTitle', { base: big(TABLE_N[0]) }), xLabel: 's7.lin.x', yLabel: 's7.lin.y', xLog: true, yLog: true,
    xTicks: TABLE_N, yTicks: [1, 16, 256, 4096, 65536],
    series: [{ label: 's7.lin.tokens', kind: 'line' }, { label: 's7.lin.pairs', kind: 'line' }],
    formatX: (v) => big(v), formatY: (v) => big(v), tableLabel: 's7.chartTable', testid: 's7-lin-chart',
  });
  const linLive = h('p', { testid: 's7-lin-live' });
  root.append(h('h3', {}, ctx.tNode('s7.lin.title')), h('p', {}, ctx.tNode('s7.lin.p', { base: big(TABLE_N[0]) })), linChart.el, linLive);

  // ---- long context
  root.append(h('h3', {}, ctx.tNode('s7.rope.title')), h('p', {}, ctx.tNode('s7.rope.p1')), h('p', {}, ctx.tNode('s7.rope.p2')));

  await calc();
  try {
    setT(ctx, unitsP, 's7.calc.units', { pct: ctx.pct(GIB / GB - 1) });
    const pairs = [], mb = [];
    for (const n of TABLE_N) {
      pairs.push(await engine.scoreMatrixBytes({ n, bytesPerElement: 1 }));
      mb.push((await engine.scoreMatrixBytes({ n, bytesPerElement: 2 })) / MB);
    }
    const mbText = (x) => num(x, x < 10 ? 2 : 0);
    tableSlot.textContent = '';
    tableSlot.append(simpleTable(ctx, {
      testid: 's7-table', caption: 's7.table.caption', stack: true,
      headers: ['s7.col.n', 's7.col.pairs', 's7.col.mb', 's7.col.ratio'],
      rows: TABLE_N.map((n, i) => [big(n), big(pairs[i]), mbText(mb[i]), i ? `×${fmt(mb[i] / mb[i - 1])}` : '—']),
    }));
    const ia = TABLE_N.indexOf(8192), ib = TABLE_N.indexOf(32768);
    setT(ctx, tableNote, 's7.table.note', {
      a: big(TABLE_N[ia]), b: big(TABLE_N[ib]), lenRatio: fmt(TABLE_N[ib] / TABLE_N[ia]),
      mbA: mbText(mb[ia]), mbB: mbText(mb[ib]), memRatio: fmt(mb[ib] / mb[ia]),
    });
    tableNote.dataset.memRatio = String(mb[ib] / mb[ia]);

    const dec = 128000, bin = 131072;
    const bDec = await engine.scoreMatrixBytes({ n: dec, bytesPerElement: 4 });
    const bBin = await engine.scoreMatrixBytes({ n: bin, bytesPerElement: 4 });
    const quoted = fmt(65);
    setT(ctx, k128p, 's7.k128.p', { dec: big(dec), bin: big(bin), quoted });
    setT(ctx, decP, 's7.k128.dec', { n: big(dec), bytes: big(bDec), gb: num(bDec / GB, 1), gib: num(bDec / GIB, 2), quoted });
    setT(ctx, binP, 's7.k128.bin', { n: big(bin), bytes: big(bBin), gb: num(bBin / GB, 1), gib: num(bBin / GIB, 2) });
    decP.dataset.bytes = String(bDec);
    binP.dataset.bytes = String(bBin);

    linChart.update([
      TABLE_N.map((n) => ({ x: n, y: n / TABLE_N[0] })),
      TABLE_N.map((n, i) => ({ x: n, y: pairs[i] / pairs[0] })),
    ]);
    const last = TABLE_N.length - 1;
    setT(ctx, linLive, 's7.lin.live', { n: big(TABLE_N[last]), lin: big(TABLE_N[last] / TABLE_N[0]), quad: big(pairs[last] / pairs[0]) });
  } catch (err) {
    setT(ctx, status, 's7.err.engine');
  }
}
