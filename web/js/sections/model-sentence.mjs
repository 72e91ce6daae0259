// Chapter 13, part 1: the reader's sentence through the model. Its characters as buttons; at the
// chosen one, the top-5 next characters and the rank of the one that follows, and every head's
// weights from there (a heatmap); one head's whole map, the causal mask drawn grey.
// testids and URL keys: model.mjs's header.
//
//   mountSentence(root, ctx, st, fm, {onSentence(cur)}) → {start(model, port), run()}
//     st: the chapter's state (text, pos, layer, head), read and written here; fm: modelFormat(ctx);
//     onSentence: after each new sentence, with {enc, probs, attention} (part 2 scores it);
//     start: the model is loaded, the textarea now runs it; run(): run the sentence on screen

import { createHeatmap } from '../widgets/heatmap.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { select, controlRow } from '../widgets/controls.mjs';
import { h, setT, serial } from '../dom.mjs';
import { intIn } from '../state.mjs';
import { encode, runText, topPredictions, rankOf, rowOf } from './model-compute.mjs';

const TOP = 5;

export function mountSentence(root, ctx, st, fm, { onSentence }) {
  const { state, fmt, tNode } = ctx;
  const { pct, P, shown, spoken, chip, headName } = fm;
  let model = null, port = null;
  const cfg = () => model.config;

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
    onSentence(cur);
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

  function start(m, p) {
    model = m; port = p;
    textArea.addEventListener('input', () => {
      st.text = textArea.value;
      state.setLater({ text: st.text === ctx.t('model.defaultText') ? null : st.text, pos: null });
      st.pos = 0;
      runSentence();
    });
  }

  return { start, run: runSentence };
}
