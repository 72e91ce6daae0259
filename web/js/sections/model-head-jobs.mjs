// Chapter 13, part 2: heads with a job. Each head's mean weight on a few visible jobs (the
// previous character, itself, the last space, …) over the held-out tenth of the corpus, the
// best head per job against a uniform head, and the same table for the reader's sentence.
// testids: model.mjs's header.
//
//   mountHeadJobs(root, ctx, fm) → {failed(), showOwn(cur, cfg), run(model, port, base, {onCorpus, onLoss})}
//     fm: modelFormat(ctx); failed(): the model did not load;
//     showOwn: the table for the sentence part 1 ran ({enc, attention}), cfg: the model's config;
//     run: fetch the corpus (base + '.corpus.txt') and score the held-out text; onCorpus(characters)
//     once the corpus is in, onLoss(loss, predicted) once scored (part 4 shows both)

import { simpleTable } from '../widgets/table.mjs';
import { h, setT } from '../dom.mjs';
import { HEAD_JOBS, scoreText, heldOut, scoreHeldOut } from './model-compute.mjs';

export function mountHeadJobs(root, ctx, fm) {
  const { fmt, tNode } = ctx;
  const { pct, num, P, headName } = fm;

  const scoresBox = h('div', { testid: 'model-scores', 'data-state': 'running', 'aria-busy': 'true' });
  const scoresStatus = h('p', { class: 'status-line', 'aria-live': 'polite' });
  const scoresSlot = h('div', { class: 'table-slot' });
  const scoresLive = h('div', { testid: 'model-scores-live' });
  const ownSlot = h('div', { class: 'table-slot' });
  const ownLive = h('p', { testid: 'model-own-live', 'aria-live': 'polite' });
  const jobList = h('ul', {}, ...HEAD_JOBS.map((j) => h('li', {}, tNode(`model.job.${j}.def`))));
  scoresBox.append(scoresStatus, scoresSlot, scoresLive);
  root.append(h('h3', {}, tNode('model.jobs.title')), P('model.jobs.p1'), jobList, P('model.jobs.p2'), scoresBox,
    h('h4', {}, tNode('model.jobs.ownTitle')), P('model.jobs.ownP'), ownSlot, ownLive);

  const failed = () => {
    scoresBox.dataset.state = 'error';
    scoresBox.removeAttribute('aria-busy');
  };

  const jobHeaders = ['model.col.head', ...HEAD_JOBS.map((j) => `model.job.${j}.col`)];
  function scoreTable(sc, testid, caption) {
    const rows = [];
    for (let l = 0; l < sc.layers; l++) for (let hd = 0; hd < sc.heads; hd++) {
      rows.push([headName(l, hd), ...HEAD_JOBS.map((j) => pct(sc.jobs[j].mean[l][hd]))]);
    }
    rows.push([ctx.t('model.jobs.uniformRow'), ...HEAD_JOBS.map((j) => pct(sc.jobs[j].uniform))]);
    return simpleTable(ctx, { testid, caption, headers: jobHeaders, rows, stack: true });
  }
  const layerMean = (sc, job, l) => sc.jobs[job].mean[l].reduce((a, b) => a + b, 0) / sc.heads;

  function showOwn(cur, cfg) {
    const sc = scoreText(cur.attention, cur.enc.chars, cfg.layers, cfg.heads);
    ownSlot.textContent = '';
    ownSlot.append(scoreTable(sc, 'model-own-table', tNode('model.jobs.ownCaption', { n: fmt(cur.enc.ids.length) })));
    const b = sc.jobs.prev.best;
    if (b) setT(ctx, ownLive, 'model.jobs.ownLive', { name: headName(b.layer, b.head), w: pct(b.score), u: pct(sc.jobs.prev.uniform) });
    else ownLive.textContent = '';
    ownLive.dataset.best = b ? `${b.layer + 1}.${b.head + 1}` : '';
  }

  async function run(model, port, base, { onCorpus, onLoss }) {
    let corpus;
    try {
      const r = await fetch(`${base}.corpus.txt`);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      corpus = await r.text();
    } catch {
      failed();
      setT(ctx, scoresStatus, 'model.err.corpus');
      return;
    }
    onCorpus(Array.from(corpus).length);
    let sc;
    try {
      sc = await scoreHeldOut(port, model, heldOut(corpus), {
        onWindow: (done, total) => { if (done === 1 || done % 20 === 0) setT(ctx, scoresStatus, 'model.jobs.running', { done: fmt(done), total: fmt(total) }); },
      });
    } catch (err) {
      failed();
      ctx.showError(scoresStatus, err);
      return;
    }
    setT(ctx, scoresStatus, 'model.jobs.done', { n: fmt(sc.characters), w: fmt(sc.windows) });
    scoresSlot.append(scoreTable(sc, 'model-scores-table', tNode('model.jobs.caption', { n: fmt(sc.characters) })));
    scoresLive.textContent = '';
    const list = h('ul', {});
    for (const j of HEAD_JOBS) {
      const b = sc.jobs[j].best;
      list.append(h('li', {}, tNode('model.jobs.best', {
        job: ctx.t(`model.job.${j}.col`), name: headName(b.layer, b.head), w: pct(b.score),
        u: pct(sc.jobs[j].uniform), r: num(b.score / sc.jobs[j].uniform, 1),
      })));
    }
    const strongest = Math.max(...HEAD_JOBS.map((j) => sc.jobs[j].best.score));
    scoresLive.append(list, P(strongest >= 0.5 ? 'model.jobs.verdictClear' : 'model.jobs.verdictNone', { w: pct(strongest) }),
      P('model.jobs.layers', {
        p1: pct(layerMean(sc, 'prev', 0)), p2: pct(layerMean(sc, 'prev', 1)),
        s1: pct(layerMean(sc, 'self', 0)), s2: pct(layerMean(sc, 'self', 1)),
        sp1: pct(layerMean(sc, 'space', 0)), sp2: pct(layerMean(sc, 'space', 1)),
      }));
    scoresBox.dataset.best = JSON.stringify(Object.fromEntries(HEAD_JOBS.map((j) => [j, sc.jobs[j].best])));
    scoresBox.dataset.loss = String(sc.loss);
    scoresBox.dataset.state = 'done';
    scoresBox.removeAttribute('aria-busy');
    onLoss(sc.loss, sc.predicted);
  }

  return { failed, showOwn, run };
}
