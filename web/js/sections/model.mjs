// Chapter 13: a model that learned the reader's language (issue 24, items 1, 2, 3 and 6).
// The character model trained on the lesson's own prose (web/models/<lang>.ckpt, 2 layers of
// 4 heads, about 108 thousand weights) runs in the engine worker. Part 1 runs the reader's
// sentence through it: the top-5 next characters at a chosen character and every head's
// weights from there, and one head's whole map. Part 2 scores each head for a few visible jobs
// over the held-out text (and the reader's sentence). Part 3 continues a prompt one character at
// a time through the KV cache with a temperature and a seed. Part 4 sets its size next to the
// real models of chapter 12's calculator. Every number: model-compute.mjs (run by a Node test).
// The model and its corpus are fetched when this section mounts (sections mount as the reader
// nears them: pages/lazy-mount.mjs), never on the first paint.
//
// URL state (section model): text (the sentence), pos (1…length: the chosen character),
//   layer (1…2), head (1…4), prompt (the text to continue), seed (0…1e9), temp (a TEMPS value),
//   gen (characters generated so far, 0…context).
// data-testid hooks:
//   model-status (data-model: loading | ready | error; data-code on error)
//   model-text (textarea), model-text-msg (data-code: empty | unknown | cut), model-chars (buttons
//   model-char-<i>, aria-pressed), model-top (table; data-pos, data-ids, data-probs), model-from
//   (heatmap: every head from the chosen character; data-pos), model-layer, model-head (selects),
//   model-map (the chosen head's whole map; data-layer, data-head),
//   model-scores (data-state: running | done | error; data-best: JSON), model-scores-table,
//   model-scores-live, model-own-table, model-own-live,
//   model-prompt, model-prompt-msg, model-temp, model-seed, model-step, model-run, model-restart,
//   model-gen (data-gen, data-text), model-cache (data-length, data-bytes, data-capacity),
//   model-dist (table; data-temp), model-scale (table), model-loss (data-model, data-uniform).
//
// The parts, one file each: model-sentence.mjs (part 1), model-head-jobs.mjs (part 2),
// model-generate.mjs (part 3), model-size.mjs (part 4), model-format.mjs (how they write
// characters, heads and numbers). This file reads the URL state, lays the parts out, loads the
// model and starts them.

import { h, setT } from '../dom.mjs';
import { intIn, oneOf } from '../state.mjs';
import { loadModel, modelLanguage } from './model-compute.mjs';
import { modelFormat } from './model-format.mjs';
import { mountSentence } from './model-sentence.mjs';
import { mountHeadJobs } from './model-head-jobs.mjs';
import { mountGenerate, TEMPS } from './model-generate.mjs';
import { mountSize } from './model-size.mjs';

export async function mount(root, ctx) {
  const { engine, state, fmt, tNode } = ctx;
  const port = (name, arg) => engine.call(name, arg);
  const modelLang = modelLanguage(ctx.lang);
  const base = new URL(`../../models/${modelLang}`, import.meta.url).href;
  const fm = modelFormat(ctx);

  const st = {
    text: state.get('text', ctx.t('model.defaultText')),
    pos: state.get('pos', 0),     // 1-based in the URL; 0: the last character
    layer: intIn(state.get('layer', 1), 1, 2, 1) - 1,
    head: intIn(state.get('head', 1), 1, 4, 1) - 1,
    prompt: state.get('prompt', ctx.t('model.defaultPrompt')),
    seed: intIn(state.get('seed', 1), 0, 1e9, 1),
    temp: oneOf(TEMPS, state.get('temp', 0.8), 0.8),
    gen: state.get('gen', 0),
  };

  // ================================================================ the lead and the model's status
  root.append(h('p', { class: 'lead' }, tNode('model.lead')));
  const status = h('p', { class: 'status-line', testid: 'model-status', 'aria-live': 'polite', 'data-model': 'loading' }, tNode('model.loading'));
  root.append(status);

  // ================================================================ the four parts, in page order
  const sentence = mountSentence(root, ctx, st, fm, { onSentence: (cur) => jobs.showOwn(cur, model.config) });
  const jobs = mountHeadJobs(root, ctx, fm);
  const generation = mountGenerate(root, ctx, st, fm);
  const size = mountSize(root, ctx, fm);

  // ================================================================ load the model
  let model = null, info = null;
  const fail = (code, key) => {
    status.dataset.model = 'error';
    status.dataset.code = code;
    setT(ctx, status, key);
  };
  try {
    const [bytes, json] = await Promise.all([
      fetch(`${base}.ckpt`).then((r) => { if (!r.ok) throw Object.assign(new Error(`HTTP ${r.status}`), { code: 'Fetch' }); return r.arrayBuffer(); }),
      fetch(`${base}.json`).then((r) => (r.ok ? r.json() : null)).catch(() => null),
    ]);
    info = json;
    model = await loadModel(port, new Uint8Array(bytes));
  } catch (err) {
    if (err && err.code === 'BadModel') fail('BadModel', 'model.err.bad');
    else if (err && err.code === 'EngineCrashed') { status.dataset.model = 'error'; status.dataset.code = 'EngineCrashed'; ctx.showError(status, err); }
    else fail('Fetch', 'model.err.fetch');
    jobs.failed();
    return;   // the rest of the page keeps working: only this section waits for the model
  }
  const cfg = model.config;
  setT(ctx, status, 'model.ready', { layers: fmt(cfg.layers), heads: fmt(cfg.heads), p: fmt(model.parameterCount), v: fmt(model.vocabulary.length), n: fmt(cfg.context) });
  status.dataset.model = 'ready';
  sentence.start(model, port);
  generation.start(model, port);
  size.showScale(model);

  // ---------------------------------------------------------------- first render
  await sentence.run();
  await generation.run();
  // a few seconds of engine work (195 forwards over the held-out text), not awaited: awaiting it
  // held every page's "all sections ready" for tens of seconds under load (offline.test timed out);
  // its table's slot is below the section's controls, so what arrives later grows downwards
  jobs.run(model, port, base, {
    onCorpus: (characters) => size.showCannot(characters, cfg),
    onLoss: (loss, predicted) => size.showLoss(loss, predicted, model, info),
  });
}
