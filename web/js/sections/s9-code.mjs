// Section 9: the same thing in code. (1) The call to our engine (JavaScript),
// with the worked example's Q, K, V written in (taken from the engine), and a
// button that runs exactly that call. (2) The same attention written in NumPy,
// from the word vectors (tests/node/listings.test.mjs runs it exactly as shown).
// (3) The PyTorch equivalent as text, and
// what `is_causal=True` means: a lower-triangular mask aligned at the TOP-LEFT
// when L ≠ S, the same as our `causal` flag; the same as an explicit boolean
// mask; never pass both. (4) A live L=2, S=4 case showing the top-left
// alignment, and rowOffset shifting it to the bottom-right (a decoding step).
//
// data-testid hooks:
//   s9-js, s9-numpy, s9-py, s9-mask   code blocks (<pre>); their text: ../code-listings.mjs
//   s9-zero-based                the note that code counts rows from 0
//   s9-run, s9-result            run button and its output table
//   s9-topleft, s9-offset        heatmaps of the L=2, S=4 weights (rowOffset 0 and 2)
//   s9-status                    engine error for this section

import { exampleWords, DEFAULT, computeExample } from '../lesson/worked-example.mjs';
import { createHeatmap } from '../widgets/heatmap.mjs';
import { matrixView } from '../widgets/matrix-view.mjs';
import { button } from '../widgets/controls.mjs';
import { el, prose } from '../dom.mjs';
import { cite } from '../lesson/references.mjs';
import { jsListing, numpyListing, pytorchListing, MASK_LISTING } from './s9-listings.mjs';

export async function mount(root, ctx) {
  const WORDS = exampleWords(ctx.lang);   // the example's tokens in the reader's script (the code stays English)
  const { tNode, state, engine } = ctx;
  const { P, H3 } = prose(ctx);
  const code = (text, testid, lang) => {
    const pre = el('pre', 'code');
    pre.dir = 'ltr';
    pre.tabIndex = 0;              // scrollable regions must be reachable by keyboard
    pre.dataset.testid = testid;
    const c = el('code', `language-${lang}`, text);
    pre.append(c);
    return pre;
  };
  void state;

  const status = el('div');
  status.dataset.testid = 's9-status';
  status.setAttribute('aria-live', 'polite');
  root.append(P('s9.intro'), status);

  let ex;
  try {
    ex = await computeExample(engine, { ...DEFAULT, causal: true });
  } catch (err) {
    ctx.showError(status, err);
  }
  // Without the engine there are no numbers to show: the code keeps its shape, values read "…".
  const none = { rows: 4, cols: 2, data: null };
  const Q = ex ? ex.Q : none, K = ex ? ex.K : none, V = ex ? ex.V : none;

  // ---------------------------------------------------------------- our engine
  root.append(H3('s9.jsTitle'), P('s9.jsText'));
  const zero = P('s9.zeroBased');
  zero.dataset.testid = 's9-zero-based';
  root.append(zero);
  const jsPre = code(jsListing(Q, K, V), 's9-js', 'js');
  jsPre.setAttribute('aria-label', ctx.t('s9.jsAria'));
  root.append(jsPre);
  const result = el('div', 'grid-2');
  result.dataset.testid = 's9-result';
  const wView = matrixView(ctx, { caption: 's9.weightsCaption', rowLabels: WORDS, colLabels: WORDS, digits: 3 });
  const oView = matrixView(ctx, { caption: 's9.outCaption', rowLabels: WORDS, digits: 3 });
  const run = button(ctx, {
    label: 's9.run', kind: 'primary', testid: 's9-run',
    onClick: async () => {
      try {
        const r = await engine.attention({ q: Q, k: K, v: V, causal: true, returnWeights: true });
        wView.update(r.weights); oView.update(r.out);
        result.hidden = false;
        status.textContent = '';
      } catch (err) { ctx.showError(status, err); }
    },
  });
  if (!ex) run.el.disabled = true;
  result.hidden = true;
  result.append(wView.el, oView.el);
  root.append(el('p', null, run.el), result);

  // ---------------------------------------------------------------- NumPy
  root.append(H3('s9.npTitle'), P('s9.npText'));
  const npPre = code(numpyListing(ex || DEFAULT), 's9-numpy', 'python');
  npPre.setAttribute('aria-label', ctx.t('s9.npAria'));
  root.append(npPre, P('s9.npAfter'));

  // ---------------------------------------------------------------- PyTorch
  const pyText = P('s9.pyText');
  pyText.append(' ', cite(ctx, 'pytorch-sdpa'));
  root.append(H3('s9.pyTitle'), pyText);
  const pyPre = code(pytorchListing(Q, K, V), 's9-py', 'python');
  pyPre.setAttribute('aria-label', ctx.t('s9.pyAria'));
  root.append(pyPre);
  root.append(H3('s9.causalTitle'), P('s9.causalText'));
  const maskPre = code(MASK_LISTING, 's9-mask', 'python');
  maskPre.setAttribute('aria-label', ctx.t('s9.maskAria'));
  root.append(maskPre);
  const rules = el('ul');
  for (const k of ['s9.rule.same', 's9.rule.notBoth', 's9.rule.topLeft', 's9.rule.scale']) rules.append(el('li', null, tNode(k)));
  root.append(rules);

  // ---------------------------------------------------------------- L ≠ S, live
  root.append(H3('s9.lsTitle'), P('s9.lsText'));
  const grid = el('div', 'grid-2');
  const hmTop = createHeatmap(ctx, {
    label: 's9.topLeftLabel', rowLabels: WORDS.slice(2), colLabels: WORDS, min: 0, max: 1, digits: 2,
    testid: 's9-topleft', exportName: 'causal-top-left', rowTitle: 's9.queries', colTitle: 's9.keys',
  });
  const hmOff = createHeatmap(ctx, {
    label: 's9.offsetLabel', rowLabels: WORDS.slice(2), colLabels: WORDS, min: 0, max: 1, digits: 2,
    testid: 's9-offset', exportName: 'causal-bottom-right', rowTitle: 's9.queries', colTitle: 's9.keys',
  });
  grid.append(hmTop.el, hmOff.el);
  root.append(grid, P('s9.lsAfter'));
  if (ex) {
    try {
      // The last two words ask; all four keys are there (L = 2, S = 4).
      const q2 = { rows: 2, cols: 2, data: Q.data.slice(4, 8) };
      const [a, b] = await Promise.all([
        engine.attention({ q: q2, k: K, v: V, causal: true, returnWeights: true }),
        engine.attention({ q: q2, k: K, v: V, causal: true, rowOffset: 2, returnWeights: true }),
      ]);
      hmTop.update(a.weights);
      hmOff.update(b.weights);
    } catch (err) { ctx.showError(status, err); }
  }
}
