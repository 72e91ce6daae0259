// Section "intro": the big idea in a few lines (the three products, the two problems
// the lesson solves), a map of the lesson built from the page's own sections, and,
// folded away, a refresher of what the lesson assumes. Each refresher item has one
// small live check whose result the engine computes:
//   dot product      attention(q = a, k = b, scale = null) → the score a·b
//   matrix product   project(A, B) (worked-example.mjs: the same kernel)  → A·B
//   eˣ and ln        softmaxRow([x, 0]) → weights w₀/w₁ = eˣ;  rowStats(uniform over m) → entropy = ln m
//   distribution     softmaxRow(scores) → weights, their sum
//   entropy (nats)   rowStats(p) → H(p), against ln n
//
// URL state (section intro): fold.refresher=1 (the fold is open); a, b (dot product
// vectors "1_2_3"), A (2×2 matrix), x, m, s (scores), p (probabilities).
// data-testid hooks:
//   intro-formula, intro-map (the <ol> of links), intro-fold-refresher (+ -summary),
//   intro-dot-a, intro-dot-b, intro-dot-out (data-value), intro-mm-A (matrix editor),
//   intro-mm-out (result matrix), intro-exp-x, intro-exp-out (data-value), intro-ln-m,
//   intro-ln-out (data-value), intro-dist-s, intro-dist-out (data-weights, data-sum),
//   intro-ent-p, intro-ent-out (data-value, data-max); each field's error: <testid>-error.

import { h, el, prose, setT, serial } from '../dom.mjs';
import { fold } from '../widgets/fold.mjs';
import { createMatrixEditor } from '../widgets/matrix-editor.mjs';
import { matrixView } from '../widgets/matrix-view.mjs';
import { project } from '../lesson/worked-example.mjs';
import { cite } from '../lesson/references.mjs';
import { splitNumberList } from '../i18n/numerals.mjs';
import { textKeys, rawText, pluralKey } from '../i18n/i18n.mjs';
import { chapterMinutes, WORDS_PER_MINUTE } from '../lesson/reading-time.mjs';
import { SECTIONS, SECTION_NUMBERS } from '../lesson/lesson-sections.mjs';

const MAX_LEN = 12;                 // entries in a vector field
const DEF = {
  a: [1, 2, 3], b: [4, -1, 2],
  A: { rows: 2, cols: 2, data: Float32Array.from([1, 2, 0, 1]) },
  B: { rows: 2, cols: 2, data: Float32Array.from([3, 1, 1, 2]) },
  x: 1, m: 8, s: [2, 1, 0], p: [0.5, 0.25, 0.25],
};

/**
 * "1، 2، 3" in any digits → numbers, or {error: text key}. Split by the lesson's one list rule
 * (numerals.mjs splitNumberList, also s5's row): "٠,٥" is 0.5, and "1,2,3" is refused with
 * s5's comma message instead of being read as three numbers.
 */
export function parseList(ctx, text) {
  const parts = splitNumberList(text);
  if (!parts.length) return { error: 'intro.err.empty' };
  if (parts.length > MAX_LEN) return { error: 'intro.err.long', params: { max: MAX_LEN } };
  const out = [];
  for (const s of parts) {
    const r = ctx.parseNumber(s);
    // the same reasons and messages as s5's row (a comma inside one token, 1,234)
    if (!r.ok && r.reason === 'ambiguous') return { error: 's5.err.ambiguous', params: { token: s } };
    if (!r.ok && r.reason === 'invalid' && s.includes(',')) return { error: 's5.err.comma', params: { token: s } };
    if (!r.ok || !Number.isFinite(r.value) || Math.abs(r.value) > 1e4) return { error: 'intro.err.number', params: { s } };
    out.push(r.value);
  }
  return { value: out };
}

const fromUrl = (s, def) => {
  if (typeof s !== 'string' || !/^-?[0-9.e]+(_-?[0-9.e]+)*$/.test(s)) return def;
  const v = s.split('_').map(Number);
  return v.length <= MAX_LEN && v.every(Number.isFinite) ? v : def;
};

export async function mount(root, ctx) {
  const { engine, state, fmt } = ctx;
  const { P, H3 } = prose(ctx);
  const f = (x, d = 4) => fmt(x, { maximumFractionDigits: d });
  // A left-to-right mark after each comma: without it, Arabic-Indic digits (bidi class AN)
  // pull the commas between them into a right-to-left run and "١، ٢، ٣" shows as "٣، ٢، ١".
  // (An Arabic minus sign comes with an Arabic letter mark, U+061C: made an LRM too.)
  const listText = (v) => v.map((x) => fmt(x, { useGrouping: false, maximumFractionDigits: 6 }).replace(/\u061c/g, '\u200e')).join('،\u200e ');

  // ---------------------------------------------------------------- the big idea
  const formula = h('div', { class: 'big-formula', testid: 'intro-formula' },
    ctx.renderMath('\\operatorname{Attention}(Q,K,V)=\\operatorname{softmax}\\!\\left(\\frac{QK^{\\top}}{\\sqrt{d_k}}\\right)V', { display: true }));
  const p1 = P('intro.idea.p1');
  p1.append(' ', cite(ctx, 'vaswani2017'));
  const steps = el('ol', 'idea-steps',
    el('li', null, ctx.tNode('intro.idea.step1')),
    el('li', null, ctx.tNode('intro.idea.step2')),
    el('li', null, ctx.tNode('intro.idea.step3')));
  root.append(h('p', { class: 'lead' }, ctx.tNode('intro.lead')), p1, formula, steps,
    P('intro.idea.problems'),
    el('ul', 'idea-problems', el('li', null, ctx.tNode('intro.idea.collapse')), el('li', null, ctx.tNode('intro.idea.memory'))));

  // ---------------------------------------------------------------- the map
  // Built from the sections the page has (their headings), so a new section shows up here
  // by itself; the line under each title is intro.map.<id> when the text has one. The core
  // path (lesson-sections.mjs `core`) is marked, the other chapters are marked optional, and
  // each chapter shows its reading time, computed from its text (reading-time.mjs).
  const ids = [...document.querySelectorAll('main > section[id]')].map((s) => s.id).filter((id) => id !== root.id);
  const minutes = chapterMinutes(textKeys(), rawText, ids);
  const core = new Set(SECTIONS.filter((s) => s.core).map((s) => s.id));
  const minutesNode = (n) => ctx.tNode(pluralKey('path.map.minutes', n), { n: fmt(n) });
  const map = h('ol', { class: 'lesson-map', testid: 'intro-map' });
  for (const sec of document.querySelectorAll('main > section[id]')) {
    if (sec === root) continue;
    const head = sec.querySelector('h2');
    if (!head) continue;
    const isCore = core.has(sec.id);
    const numbered = Object.hasOwn(SECTION_NUMBERS, sec.id);
    const li = h('li', { class: isCore ? 'map-core' : (numbered ? 'map-optional' : null), dataset: { section: sec.id } },
      h('a', { href: `#${sec.id}` }, head.textContent.trim()));
    if (isCore || numbered) {
      li.append(' ', h('span', { class: isCore ? 'map-badge map-badge-core' : 'map-badge', testid: `intro-map-kind-${sec.id}` },
        ctx.tNode(isCore ? 'path.map.core' : 'path.map.optional')),
      ' ', h('span', { class: 'map-time', testid: `intro-map-time-${sec.id}`, dataset: { minutes: String(minutes[sec.id]) } },
        minutesNode(minutes[sec.id])));
    }
    if (ctx.has(`intro.map.${sec.id}`)) li.append(' — ', el('span', 'map-what', ctx.tNode(`intro.map.${sec.id}`)));
    map.append(li);
  }
  const coreIds = ids.filter((id) => core.has(id));
  const coreMinutes = coreIds.reduce((a, id) => a + minutes[id], 0);
  const chapters = coreIds.filter((id) => Object.hasOwn(SECTION_NUMBERS, id)).map((id) => SECTION_NUMBERS[id]);
  const lead = h('p', { class: 'map-lead', testid: 'intro-map-lead', dataset: { minutes: String(coreMinutes) } },
    ctx.tNode('path.map.lead', { first: fmt(Math.min(...chapters)), last: fmt(Math.max(...chapters)), time: minutesNode(coreMinutes) }));
  root.append(H3('intro.map.title'), lead, map, h('p', { class: 'note' }, ctx.tNode('path.map.how', { wpm: fmt(WORDS_PER_MINUTE) })));

  // ---------------------------------------------------------------- refresher (folded)
  const fr = fold(ctx, { name: 'refresher', summary: 'intro.pre.summary', why: 'intro.pre.why', testid: 'intro-fold-refresher', cls: 'refresher' });
  root.append(fr.el);
  const body = fr.body;

  // A text field holding a list of numbers; on a valid change, run().
  const fields = [];
  function listField({ label, key, def, testid, run }) {
    let value = fromUrl(state.get(key, ''), def);
    const id = `${testid}-in`;
    const input = h('input', { type: 'text', id, dir: 'ltr', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', testid });
    const msg = h('span', { class: 'field-error', id: `${id}-err`, 'aria-live': 'polite', testid: `${testid}-error` });
    input.setAttribute('aria-describedby', msg.id);
    input.value = listText(value);
    const commit = () => {
      const r = parseList(ctx, input.value);
      const bad = r.error || (run.check && run.check(r.value));
      if (bad) {
        setT(ctx, msg, typeof bad === 'string' ? bad : bad.error, (typeof bad === 'string' ? null : bad.params) || r.params);
        input.setAttribute('aria-invalid', 'true');
        return;
      }
      msg.textContent = '';
      input.removeAttribute('aria-invalid');
      value = r.value;
      input.value = listText(value);
      state.set(key, value.join('_'));
      run();
    };
    input.addEventListener('change', commit);
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); commit(); } });
    const wrap = h('div', { class: 'control control-number control-list' }, h('label', { for: id }, ctx.tNode(label)), input, msg);
    const fld = { el: wrap, get value() { return value; } };
    fields.push(fld);
    return fld;
  }
  const out = (testid) => h('p', { class: 'live-check', testid, 'aria-live': 'polite' });
  const fail = (node, err) => { node.textContent = ''; node.append(ctx.errorNode(err)); };

  // 1. dot product
  const dotOut = out('intro-dot-out');
  const dotA = listField({ label: 'intro.dot.a', key: 'a', def: DEF.a, testid: 'intro-dot-a', run: () => dotRun() });
  const dotB = listField({ label: 'intro.dot.b', key: 'b', def: DEF.b, testid: 'intro-dot-b', run: () => dotRun() });
  const dotRun = serial(async () => {
    const a = dotA.value, b = dotB.value;
    if (a.length !== b.length) { setT(ctx, dotOut, 'intro.err.sameLength'); delete dotOut.dataset.value; return; }
    try {
      const d = a.length;
      const r = await engine.attention({
        q: { rows: 1, cols: d, data: Float32Array.from(a) }, k: { rows: 1, cols: d, data: Float32Array.from(b) },
        v: { rows: 1, cols: 1, data: new Float32Array(1) }, scale: null, returnWeights: true,
      });
      const s = r.scores.data[0];
      const terms = a.map((x, i) => `${fmt(x)} × ${fmt(b[i])}`).join(' + ');
      setT(ctx, dotOut, 'intro.dot.out', { sum: ctx.ltrExpr(`${terms} = ${f(s)}`), v: f(s) });
      dotOut.dataset.value = String(s);
    } catch (err) { fail(dotOut, err); }
  });
  body.append(H3('intro.dot.title'), P('intro.dot.p'), el('div', 'control-row', dotA.el, dotB.el), dotOut);

  // 2. matrix product (A editable, B fixed)
  const mmEd = createMatrixEditor(ctx, { label: 'intro.mm.A', value: state.getMatrix('A', DEF.A), min: -100, max: 100, testid: 'intro-mm-A' });
  const bView = matrixView(ctx, { caption: 'intro.mm.B', digits: 2 });
  const cView = matrixView(ctx, { caption: 'intro.mm.C', digits: 3, testid: 'intro-mm-out' });
  const mmOut = out('intro-mm-note');
  const mmRun = serial(async () => {
    try {
      const C = await project(engine, mmEd.value, DEF.B);
      cView.update(C);
      const at = (m, i, j) => m.data[i * m.cols + j];
      const A = mmEd.value, B = DEF.B;
      setT(ctx, mmOut, 'intro.mm.out', {
        sum: ctx.ltrExpr(`${fmt(at(A, 0, 0))} × ${fmt(at(B, 0, 1))} + ${fmt(at(A, 0, 1))} × ${fmt(at(B, 1, 1))} = ${f(at(C, 0, 1))}`),
      });
    } catch (err) { fail(mmOut, err); }
  });
  mmEd.addEventListener('change', (e) => { state.setMatrix('A', e.detail.matrix); mmRun(); });
  bView.update(DEF.B);
  body.append(H3('intro.mm.title'), P('intro.mm.p'), el('div', 'matrices', mmEd.el, bView.el, cView.el), mmOut);

  // 3. eˣ and ln
  const expOut = out('intro-exp-out');
  const lnOut = out('intro-ln-out');
  const xField = listField({
    label: 'intro.exp.x', key: 'x', def: [DEF.x], testid: 'intro-exp-x', run: Object.assign(() => expRun(), {
      check: (v) => (v.length !== 1 || Math.abs(v[0]) > 20 ? { error: 'intro.err.range', params: { min: fmt(-20), max: fmt(20) } } : null),
    }),
  });
  const mField = listField({
    label: 'intro.ln.m', key: 'm', def: [DEF.m], testid: 'intro-ln-m', run: Object.assign(() => lnRun(), {
      check: (v) => (v.length !== 1 || !Number.isInteger(v[0]) || v[0] < 1 || v[0] > 1000
        ? { error: 'intro.err.intRange', params: { min: fmt(1), max: fmt(1000) } } : null),
    }),
  });
  const expRun = serial(async () => {
    const x = xField.value[0];
    try {
      // softmax of [x, 0] gives eˣ/(eˣ+1) and 1/(eˣ+1): their ratio is eˣ
      const r = await engine.softmaxRow({ logits: [x, 0] });
      const e = r.weights[0] / r.weights[1];
      setT(ctx, expOut, 'intro.exp.out', { x: f(x), v: fmt(e, { maximumSignificantDigits: 6 }) });
      expOut.dataset.value = String(e);
    } catch (err) { fail(expOut, err); }
  });
  const lnRun = serial(async () => {
    const m = mField.value[0];
    try {
      // the entropy of m equal weights is ln m
      const s = await engine.rowStats({ rows: 1, cols: m, data: new Float32Array(m).fill(1 / m) });
      const v = s.entropy[0];
      setT(ctx, lnOut, 'intro.ln.out', { m: fmt(m), v: f(v) });
      lnOut.dataset.value = String(v);
    } catch (err) { fail(lnOut, err); }
  });
  body.append(H3('intro.exp.title'), P('intro.exp.p'), el('div', 'control-row', xField.el), expOut, el('div', 'control-row', mField.el), lnOut);

  // 4. a probability distribution (softmax of scores)
  const distOut = out('intro-dist-out');
  const sField = listField({ label: 'intro.dist.s', key: 's', def: DEF.s, testid: 'intro-dist-s', run: Object.assign(() => distRun(), {
    check: (v) => (v.some((x) => Math.abs(x) > 50) ? { error: 'intro.err.range', params: { min: fmt(-50), max: fmt(50) } } : null),
  }) });
  const distRun = serial(async () => {
    try {
      const r = await engine.softmaxRow({ logits: sField.value });
      const w = Array.from(r.weights);
      const sum = w.reduce((a, b) => a + b, 0);
      setT(ctx, distOut, 'intro.dist.out', {
        w: ctx.ltrExpr(`[${w.map((x) => ctx.pct(x)).join(', ')}]`),
        sum: ctx.ltrExpr(`${w.map((x) => f(x, 3)).join(' + ')} = ${f(sum, 4)}`),
      });
      distOut.dataset.weights = JSON.stringify(w);
      distOut.dataset.sum = String(sum);
    } catch (err) { fail(distOut, err); }
  });
  body.append(H3('intro.dist.title'), P('intro.dist.p'), el('div', 'control-row', sField.el), distOut);

  // 5. entropy in nats
  const entOut = out('intro-ent-out');
  const pField = listField({ label: 'intro.ent.field', key: 'p', def: DEF.p, testid: 'intro-ent-p', run: Object.assign(() => entRun(), {
    check: (v) => (v.some((x) => x < 0) || Math.abs(v.reduce((a, b) => a + b, 0) - 1) > 1e-3 ? 'intro.err.sum' : null),
  }) });
  const entRun = serial(async () => {
    const p = pField.value;
    try {
      const s = await engine.rowStats({ rows: 1, cols: p.length, data: Float32Array.from(p) });
      const u = await engine.rowStats({ rows: 1, cols: p.length, data: new Float32Array(p.length).fill(1 / p.length) });
      const H = s.entropy[0], max = u.entropy[0];
      setT(ctx, entOut, 'intro.ent.out', { h: f(H), n: fmt(p.length), max: f(max) });
      entOut.dataset.value = String(H);
      entOut.dataset.max = String(max);
    } catch (err) { fail(entOut, err); }
  });
  body.append(H3('intro.ent.title'), P('intro.ent.p'), el('div', 'control-row', pField.el), entOut, P('intro.ent.nat'));

  await Promise.all([dotRun(), mmRun(), expRun(), lnRun(), distRun(), entRun()]);
}
