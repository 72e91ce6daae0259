// Section 2: the worked example (four tokens in the reader's language), computed by the engine.
// x and W_Q, W_K, W_V are editable; Q, K, V, scores ÷ √d_k, weights and output
// are recomputed on every valid edit (an invalid edit keeps the last result).
// Clicking (or Enter on) a cell of scores / weights / output shows its arithmetic.
//
// data-testid hooks:
//   s2-x, s2-wq, s2-wk, s2-wv          matrix editors (cells `${id}-r{i}c{j}`, message `${id}-msg`)
//   s2-causal                           causal checkbox
//   s2-Q, s2-K, s2-V                    projected matrices (tables)
//   s2-scores, s2-weights, s2-out       heatmaps (canvas `-canvas`, table `-table`)
//   s2-steps                            arithmetic of the selected cell
//   s2-sat                              the paragraph about row 3 (numbers filled from the engine)
//   s2-sat-score, s2-sat-pct            the two live numbers in it
//   s2-hand, s2-hand-answer             the "row 1 by hand" exercise and its answer
//   s2-status                           engine error for this section (empty when fine)
// URL state (s2.*): x, wq, wk, wv (matrices, only when edited), causal, cell ("w.2.2"),
// words=en (the English sentence instead of the reader's; s2-words select, s2-words-note).

import { exampleWords, tokenShown, DEFAULT, computeExample, at, row } from '../lesson/worked-example.mjs';
import { createMatrixEditor } from '../widgets/matrix-editor.mjs';
import { createHeatmap } from '../widgets/heatmap.mjs';
import { matrixView } from '../widgets/matrix-view.mjs';
import { checkbox, controlRow, select as selectControl } from '../widgets/controls.mjs';
import { oneOf } from '../state.mjs';
import { el, prose } from '../dom.mjs';

const sameMatrix = (a, b) => a.rows === b.rows && a.cols === b.cols && a.data.every((v, i) => v === b.data[i]);

export async function mount(root, ctx) {
  const { tNode, fmt, state, engine } = ctx;
  const { P, H3 } = prose(ctx);
  const num = (x, d = 2) => (x === -Infinity ? '−∞' : fmt(x, { maximumFractionDigits: d }));
  const ltr = (parts, cls = 'arith') => ctx.ltrExpr(parts, cls);
  const pow = (v) => ['e', el('sup', null, ctx.ltrExpr(v === -Infinity ? '−∞' : num(v), 'ltr'))];
  const vec = (arr, d = 2) => ltr(`[${arr.map((v) => num(v, d)).join(', ')}]`, 'ltr vec');

  // The tokens: a sentence in the reader's language; the English one is a preset (s2.words=en).
  // The rows of x are the same either way, so every number below is the same.
  const preset = oneOf(['en'], state.get('words', ''), null);
  const WORDS = exampleWords(ctx.lang, preset);
  const word = (w) => tokenShown(w, (s) => ltr(s, 'ltr'));
  const wordsCtl = selectControl(ctx, {
    label: 's2.words.label', testid: 's2-words', value: preset || 'native',
    options: [{ value: 'native', label: 's2.words.native' }, { value: 'en', label: 's2.words.en' }],
    onChange: (v) => {
      state.set('words', v === 'en' ? 'en' : null);
      // rebuilt with the other labels (editors, tables and maps take their labels when built)
      seq++;
      root.textContent = '';
      mount(root, ctx).then(() => root.querySelector('[data-testid="s2-words"]')?.focus());
    },
  });
  root.dataset.words = preset || 'native';

  // ---------------------------------------------------------------- prose + editors
  root.append(P('s2.intro'), controlRow(wordsCtl));
  if (preset === 'en') {
    const enNote = el('p', 'note', tNode('s2.words.enNote'));
    enNote.dataset.testid = 's2-words-note';
    root.append(enNote);
  }
  const editors = {};
  const specs = [
    ['x', 's2.xLabel', DEFAULT.x, WORDS, 's2-x'],
    ['wq', 's2.wqLabel', DEFAULT.Wq, null, 's2-wq'],
    ['wk', 's2.wkLabel', DEFAULT.Wk, null, 's2-wk'],
    ['wv', 's2.wvLabel', DEFAULT.Wv, null, 's2-wv'],
  ];
  const edBox = el('div', 's2-editors');
  for (const [key, label, def, rowLabels, testid] of specs) {
    const value = state.getMatrix(key, def);
    const ed = createMatrixEditor(ctx, {
      label, value: value.rows === def.rows && value.cols === def.cols ? value : def,
      rowLabels, testid, min: -100, max: 100,
    });
    ed.setDefault(def);
    ed.addEventListener('change', (e) => {
      state.setMatrix(key, sameMatrix(e.detail.matrix, def) ? null : e.detail.matrix);
      recompute();
    });
    editors[key] = ed;
    edBox.append(ed.el);
  }
  const causal = checkbox(ctx, {
    label: 's2.causal', checked: state.get('causal', false), testid: 's2-causal',
    onChange: (on) => { state.set('causal', on ? true : null); recompute(); },
  });
  root.append(el('p', 'note', tNode('s2.editHint')), edBox, controlRow(causal));
  const status = el('div', 's2-status');
  status.dataset.testid = 's2-status';
  status.setAttribute('aria-live', 'polite');
  root.append(status);

  // ---------------------------------------------------------------- Q, K, V
  root.append(H3('s2.projTitle'), P('s2.projText'));
  const colL = ['1', '2'].map((s) => ctx.localize(s));
  const views = {
    Q: matrixView(ctx, { caption: 's2.qCaption', rowLabels: WORDS, testid: 's2-Q' }),
    K: matrixView(ctx, { caption: 's2.kCaption', rowLabels: WORDS, testid: 's2-K' }),
    V: matrixView(ctx, { caption: 's2.vCaption', rowLabels: WORDS, testid: 's2-V' }),
  };
  root.append(el('div', 'matrices', views.Q.el, views.K.el, views.V.el));

  // ---------------------------------------------------------------- scores, weights, out
  // The explanation of a cell goes under the map that was tapped (on a phone it was 1.7 screens
  // below the weights map); the heatmap returns the reader to it (widgets/heatmap.mjs).
  const onCell = (kind) => (i, j) => {
    const map = { s: hmScores, w: hmWeights, o: hmOut }[kind];
    if (explain.previousElementSibling !== map.el) map.el.after(explain);
    select(kind, i, j);
    return explain;
  };
  // said once, before the first heatmap: matrices run left to right on this RTL page
  const ltrNote = el('p', 'note', tNode('s2.ltrNote'));
  ltrNote.dataset.testid = 's2-ltr-note';
  root.append(H3('s2.scoresTitle'), P('s2.scoresText'), ltrNote);
  const hmScores = createHeatmap(ctx, {
    label: 's2.scoresLabel', rowLabels: WORDS, colLabels: WORDS, rowTitle: 's2.queries', colTitle: 's2.keys',
    digits: 2, onCellActivate: onCell('s'), testid: 's2-scores', exportName: 'scores', maxCell: 64,
  });
  root.append(hmScores.el);
  root.append(H3('s2.weightsTitle'), P('s2.weightsText'));
  const hmWeights = createHeatmap(ctx, {
    label: 's2.weightsLabel', rowLabels: WORDS, colLabels: WORDS, rowTitle: 's2.queries', colTitle: 's2.keys',
    min: 0, max: 1, digits: 2, onCellActivate: onCell('w'), testid: 's2-weights', exportName: 'weights', maxCell: 64,
  });
  root.append(hmWeights.el);
  root.append(H3('s2.outTitle'), P('s2.outText'));
  const hmOut = createHeatmap(ctx, {
    label: 's2.outLabel', rowLabels: WORDS, colLabels: colL, rowTitle: 's2.queries', colTitle: 's2.outCols',
    digits: 2, onCellActivate: onCell('o'), testid: 's2-out', exportName: 'output', maxCell: 64,
  });
  root.append(hmOut.el);

  const steps = el('div', 'steps');
  steps.dataset.testid = 's2-steps';
  steps.setAttribute('aria-live', 'polite');
  steps.tabIndex = -1;
  steps.append(P('s2.step.none'));
  // the hint in the words of the reader's device: a finger taps, a mouse clicks (site.css)
  const hint = el('p', 'note', el('span', 'for-pointer', tNode('s2.clickHint')), el('span', 'for-touch', tNode('s2.tapHint')));
  hint.dataset.testid = 's2-cell-hint';
  const explain = el('div', 's2-explain', hint, steps);
  root.append(explain);

  // ---------------------------------------------------------------- row 3 and row 1
  const satP = el('p', 'callout');
  satP.dataset.testid = 's2-sat';
  root.append(H3('s2.satTitle'), satP);
  const hand = el('div', 'panel');
  hand.dataset.testid = 's2-hand';
  root.append(H3('s2.handTitle'), hand);
  // one head, one layer: named here, before section 3 and the cost calculator multiply by them
  const heads = el('div', null, H3('s2.heads.title'), P('s2.heads.p1'), P('s2.heads.p2'));
  heads.dataset.testid = 's2-heads';
  root.append(heads);

  let r = null;           // last good result
  let sel = null;         // {kind, i, j}
  let seq = 0;

  async function recompute() {
    const my = ++seq;
    const args = {
      x: editors.x.value, Wq: editors.wq.value, Wk: editors.wk.value, Wv: editors.wv.value,
      causal: causal.checked,
    };
    let res;
    try {
      res = await computeExample(engine, args);
    } catch (err) {
      if (my !== seq) return;
      ctx.showError(status, err);   // keep the last good result on screen
      return;
    }
    if (my !== seq) return;
    status.textContent = '';
    r = res;
    render();
  }

  function render() {
    views.Q.update(r.Q); views.K.update(r.K); views.V.update(r.V);
    hmScores.update(r.scores);
    hmWeights.update(r.weights);
    hmOut.update(r.out);
    renderSat();
    renderHand();
    if (sel) showSteps(sel.kind, sel.i, sel.j);
  }

  function renderSat() {
    const i = 2;
    const dot = row(r.Q, i).reduce((a, q, c) => a + q * at(r.K, i, c), 0);
    const score = at(r.scores, i, i);
    const w = at(r.weights, i, i);
    let best = 0;
    for (let j = 1; j < 4; j++) if (at(r.scores, i, j) > at(r.scores, i, best)) best = j;
    const scoreNode = el('strong', 'num', num(score));
    scoreNode.dataset.testid = 's2-sat-score';
    const pctNode = el('strong', 'num', ctx.pct(w, { maximumFractionDigits: 0 }));
    pctNode.dataset.testid = 's2-sat-pct';
    satP.textContent = '';
    satP.append(tNode('s2.satText', {
      q: vec(row(r.Q, i)), k: vec(row(r.K, i)), dot: num(dot), score: scoreNode, pct: pctNode,
      out: vec(row(r.out, i)),
      maxNote: best === i
        ? tNode('s2.satIsMax')
        : tNode('s2.satNotMax', { word: word(WORDS[best]), max: num(at(r.scores, i, best)) }),
    }));
  }

  function renderHand() {
    const open = hand.querySelector('details')?.open;
    hand.textContent = '';
    hand.append(P('s2.handText'));
    const det = el('details', 'reveal');
    det.open = !!open;
    det.append(el('summary', null, tNode('s2.reveal')));
    const ans = el('div', null);
    ans.dataset.testid = 's2-hand-answer';
    const i = 0;
    const li = (key, params) => el('li', null, tNode(key, params));
    const scoresRow = row(r.scores, i);
    const visible = scoresRow.map((s) => s !== -Infinity);
    ans.append(el('ol', null,
      li('s2.hand.q', { q: vec(row(r.Q, i)) }),
      li('s2.hand.scores', { s: vec(scoresRow) }),
      li('s2.hand.weights', { w: vec(row(r.weights, i)) }),
      li('s2.hand.out', { o: vec(row(r.out, i)) }),
    ));
    if (!visible.every(Boolean)) ans.append(P('s2.hand.causalNote'));
    det.append(ans);
    hand.append(det);
  }

  // ---------------------------------------------------------------- step-by-step arithmetic
  function select(kind, i, j) {
    sel = { kind, i, j };
    state.set('cell', `${kind}.${i}.${j}`);
    hmScores.select(kind === 's' ? i : null, j);
    hmWeights.select(kind === 'w' ? i : null, j);
    hmOut.select(kind === 'o' ? i : null, j);
    showSteps(kind, i, j);
  }

  function showSteps(kind, i, j) {
    if (!r) return;
    steps.textContent = '';
    const dk = r.dk;
    const sq = Math.sqrt(dk);
    const items = [];
    const li = (key, params) => { const e = el('li', null, tNode(key, params)); items.push(e); return e; };
    if (kind === 's') {
      steps.append(el('h4', null, tNode('s2.step.scoreTitle', { q: word(WORDS[i]), k: word(WORDS[j]) })));
      const q = row(r.Q, i), k = row(r.K, j);
      const dot = q.reduce((a, v, c) => a + v * k[c], 0);
      li('s2.step.dot', {
        q: vec(q), k: vec(k),
        calc: ltr(`${q.map((v, c) => `${num(v)} × ${num(k[c])}`).join(' + ')} = ${num(dot, 4)}`),
      });
      if (at(r.scores, i, j) === -Infinity) {
        li('s2.step.masked', { i: fmt(i + 1), j: fmt(j + 1) });
      } else {
        li('s2.step.divide', {
          dk: fmt(dk), calc: ltr(`${num(dot, 4)} ÷ ${num(sq, 4)} = ${num(at(r.scores, i, j), 4)}`),
        });
      }
    } else if (kind === 'w') {
      steps.append(el('h4', null, tNode('s2.step.weightTitle', { q: word(WORDS[i]), k: word(WORDS[j]) })));
      const s = row(r.scores, i);
      li('s2.step.rowScores', { s: vec(s) });
      const ex = s.map((v) => (v === -Infinity ? 0 : Math.exp(v)));
      const sum = ex.reduce((a, b) => a + b, 0);
      li('s2.step.exp', {
        calc: ltr(s.flatMap((v, c) => [...(c ? [el('span', 'op', ' ; ')] : []), ...pow(v), ` = ${num(ex[c], 3)}`])),
      });
      li('s2.step.sum', { calc: ltr(`${ex.map((v) => num(v, 3)).join(' + ')} = ${num(sum, 3)}`) });
      const w = at(r.weights, i, j);
      li('s2.step.ratio', {
        calc: ltr(`${num(ex[j], 3)} ÷ ${num(sum, 3)} = ${num(w, 4)}`), pct: ctx.pct(w, { maximumFractionDigits: 1 }),
      });
      li('s2.step.maxNote');
    } else {
      steps.append(el('h4', null, tNode('s2.step.outTitle', { q: word(WORDS[i]), c: fmt(j + 1) })));
      const w = row(r.weights, i);
      const vcol = Array.from({ length: r.V.rows }, (_, m) => at(r.V, m, j));
      li('s2.step.outWeights', { w: vec(w), v: vec(vcol) });
      li('s2.step.outSum', {
        calc: ltr(`${w.map((a, m) => `${num(a, 3)} × ${num(vcol[m])}`).join(' + ')} = ${num(at(r.out, i, j), 4)}`),
      });
    }
    steps.append(el('ol', null, ...items));
    // (focus stays on the heatmap, so its arrow keys keep working: `steps` is a polite live
    // region, which announces the explanation; issue 12, item 5)
  }

  // restore the selected cell from the URL
  const cell = /^([swo])\.(\d)\.(\d)$/.exec(state.get('cell', '') || '');
  await recompute();
  if (cell && r) {
    const [, kind, i, j] = cell;
    if (+i < 4 && +j < (kind === 'o' ? r.out.cols : 4)) onCell(kind)(+i, +j);
  }
  // Without a result the status line already says why (in the page language).
}
