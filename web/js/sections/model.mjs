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

import { createHeatmap } from '../widgets/heatmap.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { select, slider, intField, controlRow } from '../widgets/controls.mjs';
import { h, setT, serial } from '../dom.mjs';
import { intIn, oneOf } from '../state.mjs';
import { PRESETS } from './kvcache-presets.mjs';
import {
  loadModel, encode, decode, glyph, runText, topPredictions, rankOf, rowOf, HEAD_JOBS, scoreText,
  heldOut, scoreHeldOut, withTemperature, generate, scaleComparison, ZWNJ, SPACE,
  modelLanguage,
} from './model-compute.mjs';

const TEMPS = [0.2, 0.5, 0.8, 1, 1.5, 2];
const TOP = 5, DIST_ROWS = 8;

export async function mount(root, ctx) {
  const { engine, state, fmt, tNode } = ctx;
  const port = (name, arg) => engine.call(name, arg);
  const modelLang = modelLanguage(ctx.lang);
  const base = new URL(`../../models/${modelLang}`, import.meta.url).href;
  // fixed decimals: «۶٫۰٪» next to «۷٫۴٪», as the lesson writes its tables
  const pct = (x, d = 1) => ctx.pct(x, { minimumFractionDigits: d, maximumFractionDigits: d });
  const num = (x, d = 2) => fmt(x, { maximumFractionDigits: d });
  const P = (key, params) => h('p', {}, tNode(key, params));

  // a character as the page shows it: a visible glyph; its spoken name for space, half-space, newline
  const NAMES = { [SPACE]: 'model.name.space', [ZWNJ]: 'model.name.zwnj', '\n': 'model.name.newline' };
  const shown = (ch) => glyph(ch);
  const spoken = (ch) => (NAMES[ch] ? ctx.t(NAMES[ch]) : glyph(ch));
  const chip = (ch) => h('span', { class: 'model-glyph', 'aria-label': spoken(ch), role: 'img' }, shown(ch));
  const headName = (l, hd) => ctx.t('model.headName', { l: fmt(l + 1), h: fmt(hd + 1) });

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

  // ================================================================ part 1: your sentence
  const textId = 'model-text-field';
  const textArea = h('textarea', { id: textId, rows: 2, dir: 'auto', class: 'model-text', testid: 'model-text', spellcheck: 'false' });
  textArea.value = st.text;
  const textMsg = h('p', { class: 'field-error', testid: 'model-text-msg', 'aria-live': 'polite', id: 'model-text-msg' });
  textArea.setAttribute('aria-describedby', 'model-text-msg');
  const chars = h('div', { class: 'model-chars', testid: 'model-chars', role: 'group', 'aria-label': ctx.t('model.s.charsLabel') });
  const topSlot = h('div', { class: 'table-slot' });
  const topLive = h('p', { 'aria-live': 'polite' });
  const fromMap = createHeatmap(ctx, {
    label: 'model.s.fromCaption', rowTitle: 'model.s.heads', colTitle: 'model.s.chars',
    min: 0, max: 1, digits: 2, testid: 'model-from', exportName: 'model-heads-from', labelWidth: 56,
    onCellActivate: (i, j) => { choose(Math.floor(i / cfg().heads), i % cfg().heads); },
  });
  const layerCtl = select(ctx, {
    label: 'model.s.layer', testid: 'model-layer', value: st.layer + 1,
    options: [1, 2].map((v) => ({ value: v, label: fmt(v) })),
    onChange: (v) => choose(v - 1, st.head),
  });
  const headCtl = select(ctx, {
    label: 'model.s.head', testid: 'model-head', value: st.head + 1,
    options: [1, 2, 3, 4].map((v) => ({ value: v, label: fmt(v) })),
    onChange: (v) => choose(st.layer, v - 1),
  });
  const headMap = createHeatmap(ctx, {
    label: 'model.s.mapCaption', rowTitle: 'model.s.queries', colTitle: 'model.s.keys',
    min: 0, max: 1, digits: 2, testid: 'model-map', exportName: 'model-head', labelWidth: 28,
    onCellActivate: (i) => { setPos(i); },
  });
  const mapTitle = h('p', { class: 'note' });
  root.append(h('h3', {}, tNode('model.s.title')), P('model.s.p1'), P('model.s.p2'),
    h('div', { class: 'experiment-panel' },
      h('div', { class: 'control control-text' }, h('label', { for: textId }, tNode('model.s.textLabel')), textArea),
      textMsg, P('model.s.charsHint'), chars),
    h('h4', {}, tNode('model.s.topTitle')), topSlot, topLive,
    h('h4', {}, tNode('model.s.fromTitle')), P('model.s.fromP'), fromMap.el,
    h('h4', {}, tNode('model.s.mapTitle')), P('model.s.mapP'),
    h('div', { class: 'experiment-panel' }, controlRow(layerCtl, headCtl)), mapTitle, headMap.el);

  // ================================================================ part 2: heads with a job
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

  // ================================================================ part 3: generate
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

  // ================================================================ part 4: honest size
  const lossP = h('p', { testid: 'model-loss' });
  const scaleSlot = h('div', { class: 'table-slot' });
  const cannotP = h('p', { testid: 'model-cannot' });
  root.append(h('h3', {}, tNode('model.size.title')), P('model.size.p1'), scaleSlot, lossP,
    P('model.size.can'), cannotP);

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
    scoresBox.dataset.state = 'error';
    scoresBox.removeAttribute('aria-busy');
    return;   // the rest of the page keeps working: only this section waits for the model
  }
  const cfg = () => model.config;
  cacheMeter.max = cfg().context;
  setT(ctx, status, 'model.ready', { layers: fmt(cfg().layers), heads: fmt(cfg().heads), p: fmt(model.parameterCount), v: fmt(model.vocabulary.length), n: fmt(cfg().context) });
  status.dataset.model = 'ready';

  // ---------------------------------------------------------------- part 1: compute + render
  let cur = null;   // {enc, probs, attention} of the sentence on screen
  const labelsOf = (list) => list.map((ch) => shown(ch));

  function textMessage(enc) {
    textMsg.textContent = '';
    delete textMsg.dataset.code;
    if (enc.unknown.length) {
      const seen = [...new Set(enc.unknown.map((u) => u.ch))];
      textMsg.dataset.code = 'unknown';
      textMsg.append(tNode('model.err.unknown', { n: fmt(enc.unknown.length), list: seen.map((c) => `«${shown(c)}»`).join('، ') }));
    }
    if (enc.cut) {
      if (textMsg.childNodes.length) textMsg.append(' ');
      textMsg.dataset.code = textMsg.dataset.code ? `${textMsg.dataset.code} cut` : 'cut';
      textMsg.append(tNode('model.err.cut', { n: fmt(cfg().context), cut: fmt(enc.cut) }));
    }
  }

  const runSentence = serial(async () => {
    const enc = encode(textArea.value, model.vocabulary, cfg().context);
    textMessage(enc);
    if (!enc.ids.length) {
      textMsg.dataset.code = textMsg.dataset.code ? `${textMsg.dataset.code} empty` : 'empty';
      if (textMsg.childNodes.length) textMsg.append(' ');
      textMsg.append(tNode('model.err.empty'));
      return;   // the last good result stays on screen
    }
    let r;
    try { r = await runText(port, model, enc.ids); } catch (err) { ctx.showError(textMsg, err); return; }
    cur = { enc, probs: r.probs, attention: r.attention };
    const T = enc.ids.length;
    st.pos = intIn(st.pos, 1, T, T);
    drawChars();
    renderPos();
    renderMap();
    renderOwn();
  });

  function drawChars() {
    chars.textContent = '';
    cur.enc.chars.forEach((ch, i) => {
      const b = h('button', {
        type: 'button', class: 'model-char', testid: `model-char-${i + 1}`, 'aria-pressed': String(i + 1 === st.pos),
        'aria-label': ctx.t('model.s.charAria', { n: fmt(i + 1), ch: spoken(ch) }),
      }, shown(ch));
      b.addEventListener('click', () => setPos(i));
      chars.append(b);
    });
  }

  function setPos(i) {
    if (!cur || i + 1 === st.pos) return;
    st.pos = i + 1;
    state.set('pos', st.pos === cur.enc.ids.length ? null : st.pos);
    chars.querySelectorAll('button').forEach((b, k) => b.setAttribute('aria-pressed', String(k === i)));
    renderPos();
    headMap.select(i, i);
  }

  function choose(l, hd) {
    if (!cur || (l === st.layer && hd === st.head)) return;
    st.layer = l; st.head = hd;
    layerCtl.value = l + 1; headCtl.value = hd + 1;
    state.setMany({ layer: l ? l + 1 : null, head: hd ? hd + 1 : null });
    renderMap();
  }

  function renderPos() {
    const { enc, probs, attention } = cur;
    const t = st.pos - 1, T = enc.ids.length;
    const top = topPredictions(probs, t, model.vocabulary, TOP);
    topSlot.textContent = '';
    const tbl = simpleTable(ctx, {
      testid: 'model-top', caption: tNode('model.s.topCaption', { n: fmt(st.pos), ch: chip(enc.chars[t]) }),
      headers: ['model.col.rank', 'model.col.char', 'model.col.p'],
      rows: top.map((x, k) => [fmt(k + 1), chip(x.ch), pct(x.p)]),
    });
    const table = tbl.querySelector('table') || tbl;
    Object.assign(table.dataset, { pos: String(st.pos), ids: top.map((x) => x.id).join(','), probs: JSON.stringify(top.map((x) => x.p)) });
    topSlot.append(tbl);
    if (t + 1 < T) {
      const r = rankOf(probs, t, enc.ids[t + 1]);
      setT(ctx, topLive, 'model.s.actual', { ch: chip(enc.chars[t + 1]), p: pct(r.p), rank: fmt(r.rank), v: fmt(model.vocabulary.length) });
    } else setT(ctx, topLive, 'model.s.atEnd');
    // every head's weights from position t over positions 0…t
    const L = cfg().layers, H = cfg().heads;
    const data = new Float32Array(L * H * (t + 1));
    for (let l = 0; l < L; l++) for (let hd = 0; hd < H; hd++) data.set(rowOf(attention[l][hd], t), (l * H + hd) * (t + 1));
    const rowLabels = [];
    for (let l = 0; l < L; l++) for (let hd = 0; hd < H; hd++) rowLabels.push(ctx.t('model.headShort', { l: fmt(l + 1), h: fmt(hd + 1) }));
    fromMap.update({ rows: L * H, cols: t + 1, data }, { rowLabels, colLabels: labelsOf(enc.chars.slice(0, t + 1)) });
    fromMap.el.dataset.pos = String(st.pos);
  }

  function renderMap() {
    const { enc, attention } = cur;
    const m = attention[st.layer][st.head];
    const T = enc.ids.length;
    const data = Float32Array.from(m.data);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) data[i * T + j] = -Infinity;   // the causal mask, drawn grey
    const labels = labelsOf(enc.chars);
    headMap.update({ rows: T, cols: T, data }, { rowLabels: labels, colLabels: labels });
    headMap.select(st.pos - 1, st.pos - 1);
    Object.assign(headMap.el.dataset, { layer: String(st.layer + 1), head: String(st.head + 1) });
    setT(ctx, mapTitle, 'model.s.mapNow', { name: headName(st.layer, st.head) });
  }

  textArea.addEventListener('input', () => {
    st.text = textArea.value;
    state.setLater({ text: st.text === ctx.t('model.defaultText') ? null : st.text, pos: null });
    st.pos = 0;
    runSentence();
  });

  // ---------------------------------------------------------------- part 2: the job table
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

  function renderOwn() {
    const sc = scoreText(cur.attention, cur.enc.chars, cfg().layers, cfg().heads);
    ownSlot.textContent = '';
    ownSlot.append(scoreTable(sc, 'model-own-table', tNode('model.jobs.ownCaption', { n: fmt(cur.enc.ids.length) })));
    const b = sc.jobs.prev.best;
    if (b) setT(ctx, ownLive, 'model.jobs.ownLive', { name: headName(b.layer, b.head), w: pct(b.score), u: pct(sc.jobs.prev.uniform) });
    else ownLive.textContent = '';
    ownLive.dataset.best = b ? `${b.layer + 1}.${b.head + 1}` : '';
  }

  async function runScores() {
    let corpus;
    try {
      const r = await fetch(`${base}.corpus.txt`);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      corpus = await r.text();
    } catch {
      scoresBox.dataset.state = 'error';
      scoresBox.removeAttribute('aria-busy');
      setT(ctx, scoresStatus, 'model.err.corpus');
      return;
    }
    // the characters it was trained on: all but the held-out tenth (train_char's split)
    const all = Array.from(corpus).length;
    setT(ctx, cannotP, 'model.size.cannot', { train: fmt(all - Math.floor(all / 10)), n: fmt(cfg().context), heads: fmt(cfg().layers * cfg().heads) });
    cannotP.dataset.train = String(all - Math.floor(all / 10));
    let sc;
    try {
      sc = await scoreHeldOut(port, model, heldOut(corpus), {
        onWindow: (done, total) => { if (done === 1 || done % 20 === 0) setT(ctx, scoresStatus, 'model.jobs.running', { done: fmt(done), total: fmt(total) }); },
      });
    } catch (err) {
      scoresBox.dataset.state = 'error';
      scoresBox.removeAttribute('aria-busy');
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
    renderLoss(sc.loss, sc.predicted);
  }

  // ---------------------------------------------------------------- part 3: generation
  const setGen = (n) => {
    const room = cfg().context - Math.min(cfg().context, encode(promptIn.value, model.vocabulary).ids.length);
    st.gen = Math.max(0, Math.min(room, n));
    state.set('gen', st.gen || null);
    runGen();
  };
  let gen = null;
  const runGen = serial(async () => {
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
  promptIn.addEventListener('input', () => {
    st.prompt = promptIn.value;
    st.gen = 0;
    state.setLater({ prompt: st.prompt === ctx.t('model.defaultPrompt') ? null : st.prompt, gen: null });
    runGen();
  });

  // ---------------------------------------------------------------- part 4: size and loss
  {
    const cmp = scaleComparison(model.parameterCount, cfg(), PRESETS);
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
  function renderLoss(loss, predicted) {
    const V = model.vocabulary.length;
    const v = info && info.validation_nats_per_char;
    setT(ctx, lossP, v ? 'model.size.loss' : 'model.size.lossOnly', {
      loss: num(loss), n: fmt(predicted), uniform: num(Math.log(V)), v: fmt(V),
      bigram: v ? num(v.bigram_add_one) : '', unigram: v ? num(v.unigram_add_one) : '',
      ppl: num(Math.exp(loss), 1),
    });
    Object.assign(lossP.dataset, { model: String(loss), uniform: String(Math.log(V)) });
  }

  // ---------------------------------------------------------------- first render
  await runSentence();
  await runGen();
  // a few seconds of engine work (195 forwards over the held-out text), not awaited: awaiting it
  // held every page's "all sections ready" for tens of seconds under load (offline.test timed out);
  // its table's slot is below the section's controls, so what arrives later grows downwards
  runScores();
}
