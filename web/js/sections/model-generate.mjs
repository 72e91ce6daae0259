// Chapter 13, part 3: the model continues a prompt one character at a time through the KV cache,
// with a temperature and a seed: the text so far, the cache's length and bytes, and the
// distribution of the next draw before and after the temperature.
// testids and URL keys: model.mjs's header.
//
//   mountGenerate(root, ctx, st, fm) → {start(model, port), run()}
//     st: the chapter's state (prompt, temp, seed, gen), read and written here; fm: modelFormat(ctx);
//     start: the model is loaded, the controls now run it; run(): generate what st says

import { simpleTable } from '../widgets/table.mjs';
import { slider, intField, controlRow } from '../widgets/controls.mjs';
import { h, setT, serial } from '../dom.mjs';
import { intIn } from '../state.mjs';
import { encode, decode, withTemperature, generate } from './model-compute.mjs';

export const TEMPS = [0.2, 0.5, 0.8, 1, 1.5, 2];
const DIST_ROWS = 8;

export function mountGenerate(root, ctx, st, fm) {
  const { state, fmt, tNode } = ctx;
  const { pct, num, P, shown, chip } = fm;
  let model = null, port = null;
  const cfg = () => model.config;

  const promptId = 'model-prompt-field';
  const promptIn = h('input', { id: promptId, type: 'text', dir: 'auto', class: 'model-prompt', testid: 'model-prompt', spellcheck: 'false', 'aria-describedby': 'model-prompt-msg' });
  promptIn.value = st.prompt;
  const promptMsg = h('p', { class: 'field-error', testid: 'model-prompt-msg', id: 'model-prompt-msg', 'aria-live': 'polite' });
  const tempCtl = slider(ctx, {
    label: 'model.g.temp', values: TEMPS, value: st.temp, testid: 'model-temp', format: (v) => num(v, 1),
    onChange: (v) => { st.temp = v; state.set('temp', v === 0.8 ? null : v); runGen(); },
  });
  tempCtl.value = st.temp;
  const seedCtl = intField(ctx, {
    label: 'model.g.seed', value: st.seed, min: 0, max: 1e9, errKey: 'model.err.seed', testid: 'model-seed', explain: true,
    onChange: (v) => { st.seed = v; state.set('seed', v === 1 ? null : v); runGen(); },
  });
  const btn = (key, testid, on) => h('button', { type: 'button', class: 'btn btn-secondary', testid, on: { click: on } }, tNode(key));
  const genOut = h('p', { class: 'model-gen', testid: 'model-gen', dir: 'rtl' });
  const cacheLine = h('p', { testid: 'model-cache', 'aria-live': 'polite' });
  const cacheMeter = h('meter', { min: 0, max: 64, value: 0, class: 'model-meter', 'aria-label': ctx.t('model.g.meterLabel') });
  const distSlot = h('div', { class: 'table-slot' });
  const distLive = h('p');
  root.append(h('h3', {}, tNode('model.g.title')), P('model.g.p1'), P('model.g.p2'),
    h('div', { class: 'experiment-panel' },
      h('div', { class: 'control control-text' }, h('label', { for: promptId }, tNode('model.g.promptLabel')), promptIn),
      promptMsg, controlRow(tempCtl, seedCtl),
      h('div', { class: 'stepper' }, btn('model.g.step', 'model-step', () => setGen(st.gen + 1)),
        btn('model.g.run', 'model-run', () => setGen(Infinity)), btn('model.g.restart', 'model-restart', () => setGen(0)))),
    h('div', { class: 'experiment-result stack' }, genOut, cacheMeter, cacheLine),
    h('h4', {}, tNode('model.g.distTitle')), P('model.g.tempP'), distSlot, distLive, P('model.g.p3'));

  // (before the model has loaded, the controls do nothing)
  const setGen = (n) => {
    if (!model) return;
    const room = cfg().context - Math.min(cfg().context, encode(promptIn.value, model.vocabulary).ids.length);
    st.gen = Math.max(0, Math.min(room, n));
    state.set('gen', st.gen || null);
    runGen();
  };
  let gen = null;
  const runGen = serial(async () => {
    if (!model) return;
    const enc = encode(promptIn.value, model.vocabulary, cfg().context);
    promptMsg.textContent = '';
    delete promptMsg.dataset.code;
    if (enc.unknown.length) {
      promptMsg.dataset.code = 'unknown';
      promptMsg.append(tNode('model.err.unknown', { n: fmt(enc.unknown.length), list: [...new Set(enc.unknown.map((u) => u.ch))].map((c) => `«${shown(c)}»`).join('، ') }));
    }
    if (!enc.ids.length) {
      promptMsg.dataset.code = 'empty';
      promptMsg.textContent = '';
      promptMsg.append(tNode('model.err.emptyPrompt'));
      return;
    }
    const count = intIn(st.gen, 0, cfg().context, 0);
    try {
      gen = await generate(port, model, { prompt: enc.ids, count, temperature: st.temp, seed: st.seed });
    } catch (err) { ctx.showError(promptMsg, err); return; }
    const newText = decode(gen.ids, model.vocabulary);
    genOut.textContent = '';
    genOut.append(h('span', { class: 'model-gen-prompt' }, decode(enc.ids, model.vocabulary)), h('mark', {}, newText));
    Object.assign(genOut.dataset, { gen: String(gen.ids.length), text: newText });
    const last = gen.steps.at(-1);
    const fedCount = last.length;
    cacheMeter.value = fedCount;
    setT(ctx, cacheLine, 'model.g.cache', {
      n: fmt(fedCount), p: fmt(gen.promptLength), g: fmt(gen.ids.length), bytes: fmt(last.cacheBytes),
      per: fmt(last.cacheBytes / fedCount), cap: fmt(last.cacheCapacityBytes), max: fmt(cfg().context),
    });
    Object.assign(cacheLine.dataset, { length: String(fedCount), bytes: String(last.cacheBytes), capacity: String(last.cacheCapacityBytes) });
    // the distribution of the next draw: after the last character fed
    const probs = last.probs;
    const hot = withTemperature(probs, st.temp);
    const order = Array.from(probs, (p, id) => ({ id, p })).sort((a, b) => b.p - a.p || a.id - b.id).slice(0, DIST_ROWS);
    distSlot.textContent = '';
    const tbl = simpleTable(ctx, {
      testid: 'model-dist', caption: tNode('model.g.distCaption', { t: num(st.temp, 1) }),
      headers: ['model.col.char', 'model.col.p1', 'model.col.pt'],
      rows: order.map((x) => [chip(String.fromCodePoint(model.vocabulary[x.id])), pct(x.p), pct(hot[x.id])]),
    });
    (tbl.querySelector('table') || tbl).dataset.temp = String(st.temp);
    distSlot.append(tbl);
    const top1 = order[0];
    setT(ctx, distLive, 'model.g.distLive', { ch: chip(String.fromCodePoint(model.vocabulary[top1.id])), p1: pct(top1.p), pt: pct(hot[top1.id]), t: num(st.temp, 1) });
  });

  function start(m, p) {
    model = m; port = p;
    cacheMeter.max = cfg().context;
    promptIn.addEventListener('input', () => {
      st.prompt = promptIn.value;
      st.gen = 0;
      state.setLater({ prompt: st.prompt === ctx.t('model.defaultPrompt') ? null : st.prompt, gen: null });
      runGen();
    });
  }

  return { start, run: runGen };
}
