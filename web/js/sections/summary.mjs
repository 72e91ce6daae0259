// Section "summary": what the reader can now explain, the few formulas and numbers
// worth remembering (every number computed here by the engine, with the inputs the
// lesson used), and where to go next: the practice page, with the reader's progress
// read from the progress store (web/js/store/).
//
// Numbers and where they come from:
//   sat's score and weight   computeExample(DEFAULT) (worked-example.mjs): scores[2][2], weights[2][2]
//   collapse at d_k = 64     experiment({n: 8, dk: 64, seeds: 1…5, scale: false|true}).mean.entropyShare
//   memory                   scoreMatrixBytes({n: 131072, bytesPerElement: 2}) and the ratio for 2n / n
//   KV cache                 computeCalculator (kvcache-compute.mjs, checked there against the engine's kvBytesRead)
//                            for Llama 3 8B's published shape in a 2-byte type: one token (bytes, and over it the
//                            plain multi-head cache, H_q / H_kv) and a context of kvContext tokens
//                            (each language's summary.rem.kv uses the params it needs)
// data-testid hooks (each number also as data-value, unformatted):
//   summary-sat-score, summary-sat-pct, summary-share-off, summary-share-on, summary-bytes,
//   summary-ratio, summary-kv-token, summary-kv-token-size, summary-kv-gqa, summary-kv-context,
//   summary-progress (data-solved, data-cards, data-quizzes), summary-practice-link

import { h, el, prose, setT } from '../dom.mjs';
import { DEFAULT, computeExample } from '../lesson/worked-example.mjs';
import { getProgressStore } from '../store/progress.mjs';
import { cite } from '../lesson/references.mjs';
import { computeCalculator } from './kvcache-compute.mjs';
import { PRESETS } from './kvcache-presets.mjs';

export const SUMMARY_INPUTS = Object.freeze({
  n: 8, dk: 64, seeds: [1, 2, 3, 4, 5], longN: 131072, bytesPerElement: 2, kvModel: 'llama3-8b', kvContext: 8192,
});

export async function mount(root, ctx) {
  const { engine, fmt } = ctx;
  const { P, H3 } = prose(ctx);
  const I = SUMMARY_INPUTS;

  // ---------------------------------------------------------------- what you can explain
  const can = el('ul', 'summary-can');
  for (const k of ['qkv', 'softmax', 'scale', 'mask', 'cost', 'chunked', 'heads', 'window', 'kvcache', 'model', 'train', 'code']) can.append(el('li', null, ctx.tNode(`summary.can.${k}`)));
  root.append(h('p', { class: 'lead' }, ctx.tNode('summary.lead')), H3('summary.can.title'), can);

  // ---------------------------------------------------------------- formulas and numbers
  const num = (testid) => h('span', { class: 'summary-num', testid });
  const live = {
    score: num('summary-sat-score'), pct: num('summary-sat-pct'),
    off: num('summary-share-off'), on: num('summary-share-on'),
    bytes: num('summary-bytes'), ratio: num('summary-ratio'),
    kvToken: num('summary-kv-token'), kvTokenSize: num('summary-kv-token-size'),
    kvGqa: num('summary-kv-gqa'), kvContext: num('summary-kv-context'),
  };
  // The numbers, from the engine (the same calls the sections make); the spans are
  // placed into the text as params (cloned there, testid and data-value included).
  const fill = (node, text, value) => { node.textContent = text; node.dataset.value = String(value); };
  const kvShape = { ...PRESETS[I.kvModel], bytesPerElement: I.bytesPerElement };
  const [ex, off, on, bytes, bytes2, kvToken, kvContext] = await Promise.all([
    computeExample(engine, { ...DEFAULT, causal: false }),
    engine.experiment({ n: I.n, dk: I.dk, seeds: I.seeds, scale: false }),
    engine.experiment({ n: I.n, dk: I.dk, seeds: I.seeds, scale: true }),
    engine.scoreMatrixBytes({ n: I.longN, bytesPerElement: I.bytesPerElement }),
    engine.scoreMatrixBytes({ n: 2 * I.longN, bytesPerElement: I.bytesPerElement }),
    computeCalculator(engine, { ...kvShape, n: 1 }),
    computeCalculator(engine, { ...kvShape, n: I.kvContext }),
  ]);
  const s = ex.scores.data[2 * 4 + 2], w = ex.weights.data[2 * 4 + 2];
  fill(live.score, fmt(s, { maximumFractionDigits: 2 }), s);
  fill(live.pct, ctx.pct(w, { maximumFractionDigits: 0 }), w);
  fill(live.off, ctx.pct(off.mean.entropyShare), off.mean.entropyShare);
  fill(live.on, ctx.pct(on.mean.entropyShare), on.mean.entropyShare);
  fill(live.bytes, ctx.fmtBytes(bytes), bytes);
  fill(live.ratio, fmt(bytes2 / bytes), bytes2 / bytes);
  const perToken = Number(kvToken.cache), gqa = Number(kvToken.mha) / perToken;
  fill(live.kvToken, fmt(perToken), perToken);
  fill(live.kvTokenSize, ctx.fmtBytes(perToken), perToken);
  fill(live.kvGqa, fmt(gqa), gqa);
  fill(live.kvContext, ctx.fmtBytes(Number(kvContext.cache)), Number(kvContext.cache));

  const remember = el('ul', 'summary-remember');
  const item = (key, params, ...extra) => { const li = el('li', null, ctx.tNode(key, params), ...extra); remember.append(li); return li; };
  item('summary.rem.formula', {}, ' ', cite(ctx, 'vaswani2017'),
    ctx.renderMath('\\operatorname{Attention}(Q,K,V)=\\operatorname{softmax}\\!\\left(\\frac{QK^{\\top}}{\\sqrt{d_k}}\\right)V', { display: true }));
  item('summary.rem.sat', { score: live.score, pct: live.pct });
  item('summary.rem.collapse', { n: fmt(I.n), dk: fmt(I.dk), seeds: fmt(I.seeds.length), off: live.off, on: live.on });
  item('summary.rem.memory', { n: fmt(I.longN), bytes: live.bytes, ratio: live.ratio });
  item('summary.rem.online', {}, ' ', cite(ctx, 'milakov2018', 'dao2022'));
  item('summary.rem.window', {});
  item('summary.rem.kv', {
    layers: fmt(kvShape.layers), hkv: fmt(kvShape.headsKv), dh: fmt(kvShape.dHead), perToken: live.kvToken, gqa: live.kvGqa,
    token: live.kvTokenSize, n: fmt(I.kvContext), context: live.kvContext,
  }, ' ', cite(ctx, 'llama3'));
  root.append(H3('summary.rem.title'), remember);

  // ---------------------------------------------------------------- next: practice + progress
  const progress = h('p', { testid: 'summary-progress' });
  const link = h('a', { href: 'practice.html', testid: 'summary-practice-link', class: 'btn btn-primary' }, ctx.tNode('summary.next.link'));
  root.append(H3('summary.next.title'), P('summary.next.p'), progress, h('p', {}, link));

  function showProgress(data) {
    const solved = Object.values(data.exercises || {}).filter((e) => e.correct > 0).length;
    const cards = Object.values(data.cards || {}).filter((c) => c.reps > 0).length;
    const runs = Object.values(data.quizzes || {}).flat();
    const last = runs.reduce((a, r) => (!a || r.at > a.at ? r : a), null);
    Object.assign(progress.dataset, { solved, cards, quizzes: runs.length });
    if (!solved && !cards && !runs.length) { setT(ctx, progress, 'summary.progress.none'); return; }
    progress.textContent = '';
    progress.append(ctx.tNode('summary.progress.some', { solved: fmt(solved), cards: fmt(cards), quizzes: fmt(runs.length) }));
    if (last) progress.append(' ', ctx.tNode('summary.progress.lastQuiz', { score: fmt(last.score), total: fmt(last.total) }));
  }
  try {
    const store = getProgressStore();
    showProgress(store.get());
    store.subscribe((data) => showProgress(data));
  } catch {
    setT(ctx, progress, 'summary.progress.unavailable');
  }

}
