// Chapter 13, part 4: the model's honest size. Its heads, width and cache bytes per token next to
// the real models of chapter 12's calculator (kvcache-presets.mjs), its loss on the held-out text
// beside a uniform guess (and the bigram and unigram baselines when the model's .json has them),
// and what it cannot do with the characters it was trained on.
// testids: model.mjs's header.
//
//   mountSize(root, ctx, fm) → {showScale(model), showCannot(characters, cfg), showLoss(loss, predicted, model, info)}
//     fm: modelFormat(ctx); characters: the corpus's; info: the model's .json (or null)

import { simpleTable } from '../widgets/table.mjs';
import { h, setT } from '../dom.mjs';
import { PRESETS } from './kvcache-presets.mjs';
import { scaleComparison } from './model-compute.mjs';

export function mountSize(root, ctx, fm) {
  const { fmt, tNode } = ctx;
  const { num, P } = fm;
  const lossP = h('p', { testid: 'model-loss' });
  const scaleSlot = h('div', { class: 'table-slot' });
  const cannotP = h('p', { testid: 'model-cannot' });
  root.append(h('h3', {}, tNode('model.size.title')), P('model.size.p1'), scaleSlot, lossP,
    P('model.size.can'), cannotP);

  function showScale(model) {
    const cmp = scaleComparison(model.parameterCount, model.config, PRESETS);
    const o = cmp.ours;
    const rows = [[ctx.t('model.size.ours'), fmt(o.heads), fmt(o.width), fmt(o.kvBytesToken)]];
    for (const r of cmp.rows) {
      rows.push([tNode(`kvcache.model.${r.key}`), ctx.t('model.size.times', { x: fmt(r.heads), r: fmt(Math.round(r.headsRatio)) }),
        ctx.t('model.size.times', { x: fmt(r.width), r: fmt(Math.round(r.widthRatio)) }),
        ctx.t('model.size.times', { x: fmt(r.kvBytesToken), r: fmt(Math.round(r.kvRatio)) })]);
    }
    scaleSlot.append(simpleTable(ctx, {
      testid: 'model-scale', caption: tNode('model.size.caption'), stack: true,
      headers: ['model.size.col.model', 'model.size.col.heads', 'model.size.col.width', 'model.size.col.kv'], rows,
    }));
  }

  function showCannot(all, cfg) {
    // the characters it was trained on: all but the held-out tenth (train_char's split)
    setT(ctx, cannotP, 'model.size.cannot', { train: fmt(all - Math.floor(all / 10)), n: fmt(cfg.context), heads: fmt(cfg.layers * cfg.heads) });
    cannotP.dataset.train = String(all - Math.floor(all / 10));
  }

  function showLoss(loss, predicted, model, info) {
    const V = model.vocabulary.length;
    const v = info && info.validation_nats_per_char;
    setT(ctx, lossP, v ? 'model.size.loss' : 'model.size.lossOnly', {
      loss: num(loss), n: fmt(predicted), uniform: num(Math.log(V)), v: fmt(V),
      bigram: v ? num(v.bigram_add_one) : '', unigram: v ? num(v.unigram_add_one) : '',
      ppl: num(Math.exp(loss), 1),
    });
    Object.assign(lossP.dataset, { model: String(loss), uniform: String(Math.log(V)) });
  }

  return { showScale, showCannot, showLoss };
}
