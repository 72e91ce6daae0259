// Section 4, the folds on the d_k sweep (for the curious): the entropy share over d_k, where it
// crosses 50 % and 10 %, and the softmax Jacobian's norm (s4-compute.mjs computeSweep, one
// engine run per point, cancellable). testids: s4-scaling.mjs's header.
//
//   sweepFolds(ctx, fSweep, fGrad, {nOf}) → {run(), schedule()}
//     fSweep, fGrad: the two folds (widgets/fold.mjs) whose bodies this fills; nOf(): n now

import { createChart } from '../widgets/chart.mjs';
import { h, setT } from '../dom.mjs';
import { SWEEP_DK, SWEEP_SEEDS, computeSweep } from './s4-compute.mjs';
import { formats } from './s4-formats.mjs';

// The folds on the d_k sweep: the entropy share and where it crosses 50 % and 10 %, and the
// softmax Jacobian's norm. → {run(), schedule()}: run now, or once n has rested for 350 ms.
export function sweepFolds(ctx, fSweep, fGrad, { nOf }) {
  const { engine, fmt } = ctx;
  const { f } = formats(ctx);
  // ---- sweep over d_k (worker, one experiment call per point, cancellable)
  const sweepP = h('p');
  const runBtn = h('button', { type: 'button', class: 'btn btn-secondary', testid: 's4-sweep-run' }, ctx.tNode('s4.sweep.run'));
  const stopBtn = h('button', { type: 'button', class: 'btn btn-secondary', testid: 's4-sweep-cancel', disabled: true }, ctx.tNode('s4.sweep.cancel'));
  const prog = h('progress', { max: '1', value: '0', testid: 's4-sweep-progress' });
  prog.setAttribute('aria-label', ctx.t('s4.sweep.chartTitle'));
  const sweepStatus = h('p', { class: 'status-line', testid: 's4-sweep-status', 'aria-live': 'polite' });
  const shareChart = createChart(ctx, {
    title: 's4.sweep.chartTitle', xLabel: 's4.sweep.x', yLabel: 's4.sweep.y', xLog: true, yMin: 0, yMax: 1,
    xTicks: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
    series: [{ label: 's4.sweep.off', kind: 'line' }, { label: 's4.sweep.on', kind: 'line' }],
    formatX: (v) => fmt(v, { maximumFractionDigits: 0 }), formatY: (v) => ctx.pct(v, { maximumFractionDigits: 0 }),
    tableLabel: 's4.chartTable', testid: 's4-sweep-chart',
  });
  const cross50 = h('p', { testid: 's4-cross50' });
  const cross10 = h('p', { testid: 's4-cross10' });
  const onRange = h('p', { testid: 's4-on-range' });
  const gradChart = createChart(ctx, {
    title: 's4.grad.chartTitle', xLabel: 's4.sweep.x', yLabel: 's4.grad.y', xLog: true, yMin: 0,
    xTicks: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
    series: [{ label: 's4.sweep.off', kind: 'line' }, { label: 's4.sweep.on', kind: 'line' }],
    formatX: (v) => fmt(v, { maximumFractionDigits: 0 }), formatY: (v) => f(v, 3),
    tableLabel: 's4.chartTable', testid: 's4-grad-chart',
  });
  const gradLive = h('p', { testid: 's4-grad-live' });
  fSweep.body.append(
    h('h3', {}, ctx.tNode('s4.sweep.title')), sweepP,
    h('div', { class: 'run-row' }, runBtn, stopBtn, prog), sweepStatus,
    shareChart.el, cross50, cross10, onRange,
  );
  fGrad.body.append(h('h3', {}, ctx.tNode('s4.grad.title')), h('p', {}, ctx.tNode('s4.grad.p')), gradChart.el, gradLive);

  let sweepGen = 0;
  let sweepTimer = null;
  function scheduleSweep() { clearTimeout(sweepTimer); sweepTimer = setTimeout(runSweep, 350); }

  async function runSweep() {
    const gen = ++sweepGen;
    const n = nOf();
    setT(ctx, sweepP, 's4.sweep.p', {
      dk64: fmt(64), points: fmt(SWEEP_DK.length), minDk: fmt(SWEEP_DK[0]), maxDk: fmt(SWEEP_DK[SWEEP_DK.length - 1]),
      seeds: fmt(SWEEP_SEEDS.length), n: fmt(n),
    });
    runBtn.disabled = true; stopBtn.disabled = false;
    shareChart.setBusy(true); gradChart.setBusy(true);
    prog.value = 0;
    const t0 = performance.now();
    try {
      const r = await computeSweep(engine, { n }, {
        stopped: () => gen !== sweepGen,
        onStep: (done, total) => {
          prog.value = done / total;
          setT(ctx, sweepStatus, 's4.sweep.progress', { done: fmt(done), total: fmt(total) });
        },
      });
      if (!r || gen !== sweepGen) return;
      prog.value = 1;
      setT(ctx, sweepStatus, 's4.sweep.done', {
        total: fmt(r.total), runs: fmt(r.runs), sec: fmt((performance.now() - t0) / 1000, { maximumFractionDigits: 1 }),
      });
      drawSweep(r);
    } catch (err) {
      if (gen === sweepGen) setT(ctx, sweepStatus, 's4.err.engine');
    } finally {
      if (gen === sweepGen) {
        runBtn.disabled = false; stopBtn.disabled = true;
        shareChart.setBusy(false); gradChart.setBusy(false);
      }
    }
  }

  function drawSweep({ n, off, on, J, cross50: c50, cross10: c10, onMin, onMax }) {
    const sOff = off.map((p) => ({ x: p.dk, y: p.share }));
    const sOn = on.map((p) => ({ x: p.dk, y: p.share }));
    const guides = [
      { axis: 'y', value: 0.5, label: ctx.pct(0.5, { maximumFractionDigits: 0 }) },
      { axis: 'y', value: 0.1, label: ctx.pct(0.1, { maximumFractionDigits: 0 }) },
    ];
    for (const [el, c, level] of [[cross50, c50, 0.5], [cross10, c10, 0.1]]) {
      const p = ctx.pct(level, { maximumFractionDigits: 0 });
      el.removeAttribute('data-dk');
      if (c.kind === 'cross') {
        setT(ctx, el, 's4.sweep.cross', { p, d: fmt(c.x, { maximumSignificantDigits: 2 }), a: fmt(c.a), b: fmt(c.b) });
        Object.assign(el.dataset, { dk: c.x, a: c.a, b: c.b });
        guides.push({ axis: 'x', value: c.x, label: `≈ ${fmt(c.x, { maximumSignificantDigits: 2 })}` });
      } else if (c.kind === 'startBelow') {
        setT(ctx, el, 's4.sweep.startBelow', { p, a: fmt(c.a) });
      } else {
        setT(ctx, el, 's4.sweep.noCross', { p, min: ctx.pct(c.min) });
      }
    }
    setT(ctx, onRange, 's4.sweep.onRange', { min: ctx.pct(onMin), max: ctx.pct(onMax), n: fmt(n) });
    shareChart.update([sOff, sOn], { guides });

    gradChart.update([off.map((p) => ({ x: p.dk, y: p.jac })), on.map((p) => ({ x: p.dk, y: p.jac }))],
      { guides: [{ axis: 'y', value: J.uniJ, label: ctx.t('s4.grad.uniform') }] });
    const at = (arr, dk) => arr.find((p) => p.dk === dk).jac;
    const offA = at(off, 64), onA = at(on, 64), offB = at(off, 1024), onB = at(on, 1024);
    setT(ctx, gradLive, 's4.grad.live', {
      n: fmt(n), uniJ: f(J.uniJ, 3), oneJ: f(J.oneJ, 3), maxJ: f(J.maxJ, 3), dkA: fmt(64), dkB: fmt(1024),
      offA: f(offA, 3), onA: f(onA, 3), ratioA: fmt(onA / offA, { maximumSignificantDigits: 2 }),
      offB: f(offB, 4), onB: f(onB, 3), ratioB: fmt(onB / offB, { maximumSignificantDigits: 2 }),
    });
    Object.assign(gradLive.dataset, { off64: offA, on64: onA, off1024: offB, on1024: onB, uniform: J.uniJ });
  }

  runBtn.addEventListener('click', () => runSweep());
  stopBtn.addEventListener('click', () => {
    sweepGen++;
    runBtn.disabled = false; stopBtn.disabled = true;
    shareChart.setBusy(false); gradChart.setBusy(false);
    setT(ctx, sweepStatus, 's4.sweep.cancelled');
  });

  return { run: runSweep, schedule: scheduleSweep };
}
