// Section 9: the same thing in code. (1) The call to our engine (JavaScript),
// with the worked example's Q, K, V written in (taken from the engine), and a
// button that runs exactly that call. (2) The PyTorch equivalent as text, and
// what `is_causal=True` means: a lower-triangular mask aligned at the TOP-LEFT
// when L ≠ S, the same as our `causal` flag; the same as an explicit boolean
// mask; never pass both. (3) A live L=2, S=4 case showing the top-left
// alignment, and rowOffset shifting it to the bottom-right (a decoding step).
//
// data-testid hooks:
//   s9-js, s9-py, s9-mask        code blocks (<pre>)
//   s9-run, s9-result            run button and its output table
//   s9-topleft, s9-offset        heatmaps of the L=2, S=4 weights (rowOffset 0 and 2)
//   s9-status                    engine error for this section

import { WORDS, DEFAULT, computeExample } from '../worked-example.mjs';
import { createHeatmap } from '../widgets/heatmap.mjs';
import { matrixView } from '../widgets/matrix-view.mjs';
import { button } from '../widgets/controls.mjs';
import { el, prose } from '../dom.mjs';

// numbers for code: Latin digits, at most 4 decimals, no trailing zeros
const codeNum = (x) => String(Math.round(x * 1e4) / 1e4);
const flat = (m) => (m.data ? Array.from(m.data, codeNum).join(', ') : '…');
const nested = (m, indent) => {
  if (!m.data) return '[…]';
  const rows = [];
  for (let i = 0; i < m.rows; i++) rows.push(`[${Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols), codeNum).join(', ')}]`);
  return `[${rows.join(`,\n${indent}`)}]`;
};

function jsSnippet(Q, K, V) {
  return `import { loadEngine } from './engine.mjs';

const engine = await loadEngine();
const matrix = (rows, cols, values) => ({ rows, cols, data: new Float32Array(values) });

// the worked example after the projections: one row per word (the, cat, sat, down)
const q = matrix(4, 2, [${flat(Q)}]);
const k = matrix(4, 2, [${flat(K)}]);
const v = matrix(4, 2, [${flat(V)}]);

// scale omitted = 1/sqrt(d_k); causal: query i sees keys 0..i
const { out, weights } = engine.attention({ q, k, v, causal: true, returnWeights: true });
console.log(weights.data);  // 4x4, row-major; entries above the diagonal are 0
console.log(out.data);      // 4x2`;
}

function pySnippet(Q, K, V) {
  const ind = ' '.repeat('q = torch.tensor(['.length);
  return `import torch
from torch.nn import functional as F

# the same numbers, shaped (batch, tokens, width) = (1, 4, 2)
q = torch.tensor(${nested(Q, ind)}, dtype=torch.float32).unsqueeze(0)
k = torch.tensor(${nested(K, ind)}, dtype=torch.float32).unsqueeze(0)
v = torch.tensor(${nested(V, ind)}, dtype=torch.float32).unsqueeze(0)

# default scale is 1/sqrt(q.size(-1)), as in our engine
y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
# y[0] is 4x2 and matches the engine's out up to float32 rounding`;
}

const MASK_SNIPPET = `L, S = q.size(-2), k.size(-2)

# is_causal=True is the same as this boolean mask (True = may attend):
keep = torch.ones(L, S, dtype=torch.bool).tril()   # row i keeps columns 0..i
y_masked = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
assert torch.allclose(y_masked, y)

# Give one or the other: attn_mask together with is_causal=True raises an error.
# With L != S, tril() starts at the top-left corner: query 0 sees key 0 only.
# A decoding step whose queries are the LAST L of S positions needs the
# bottom-right corner instead:
keep_last = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L)`;

export async function mount(root, ctx) {
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
  const jsPre = code(jsSnippet(Q, K, V), 's9-js', 'js');
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

  // ---------------------------------------------------------------- PyTorch
  root.append(H3('s9.pyTitle'), P('s9.pyText'));
  const pyPre = code(pySnippet(Q, K, V), 's9-py', 'python');
  pyPre.setAttribute('aria-label', ctx.t('s9.pyAria'));
  root.append(pyPre);
  root.append(H3('s9.causalTitle'), P('s9.causalText'));
  const maskPre = code(MASK_SNIPPET, 's9-mask', 'python');
  maskPre.setAttribute('aria-label', ctx.t('s9.maskAria'));
  root.append(maskPre);
  const rules = el('ul');
  for (const k of ['s9.rule.same', 's9.rule.notBoth', 's9.rule.topLeft', 's9.rule.scale']) rules.append(el('li', null, tNode(k)));
  root.append(rules);

  // ---------------------------------------------------------------- L ≠ S, live
  root.append(H3('s9.lsTitle'), P('s9.lsText'));
  const grid = el('div', 'grid-2');
  const hmTop = createHeatmap(ctx, {
    label: 's9.topLeftLabel', rowLabels: ['sat', 'down'], colLabels: WORDS, min: 0, max: 1, digits: 2,
    testid: 's9-topleft', exportName: 'causal-top-left', rowTitle: 's9.queries', colTitle: 's9.keys',
  });
  const hmOff = createHeatmap(ctx, {
    label: 's9.offsetLabel', rowLabels: ['sat', 'down'], colLabels: WORDS, min: 0, max: 1, digits: 2,
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
