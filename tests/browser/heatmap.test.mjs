// Heatmap widget (web/js/widgets/heatmap.mjs) as a learner meets it in section 2
// (issue 12, items 4 and 5), in both editions:
// - large values (every W_Q and W_K entry = 100): the number drawn in each cell fits the
//   cell, the colour-bar labels do not overlap, and the exact value stays in the table;
// - keyboard: Enter shows the cell's arithmetic but focus stays on the grid, so the arrows
//   keep moving between cells (as the page's help says), and the explanation is announced
//   through a live region;
// - touch (phone, 360 px): a tap on a cell shows that cell's tooltip above the finger and clear of
//   the row labels, keeps the cell on screen and brings its explanation on screen; the hint
//   says "tap".
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, url, byTestId, LANGS, normaliseText as normalise } from './helpers.mjs';
import { waitForQuery, heatmapValues, heatmapTexts } from './lesson-helpers.mjs';
import { launchPhone } from './phone.mjs';
import { exampleWords } from '../../web/js/lesson/worked-example.mjs';

// generous: these runs share two cores with other work (no assertion depends on time)
const T = { timeout: 300000 };
const openLesson = async (b, lang, query, opts) => {
  const page = await newPage(b, opts);
  await page.goto(url(`/${lang}/index.html${query}`), { waitUntil: 'load', timeout: 120000 });
  // the section of the #hash (s2) alone, unless { all: true }: the tap test keeps every section
  // built, so that nothing above the grid mounts while it checks the cell stays in view
  await waitForQuery(page, query, { all: opts?.all, timeout: 120000 });
  return page;
};
const BIG = '?s2.wq=3x2_100_100_100_100_100_100&s2.wk=3x2_100_100_100_100_100_100';
// and x = 100 everywhere too: scores near 10⁹
const HUGE = `${BIG}&s2.x=4x3_${Array(12).fill(100).join('_')}`;

// Records every fillText on a canvas with its measured width (black box: whatever the widget
// draws, in the font it set).
async function recordCanvasText(context) {
  await context.addInitScript(() => {
    const orig = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, x, y, ...rest) {
      const c = this.canvas;
      const m = this.measureText(text);
      const t = this.getTransform();
      // CSS px: the widget draws through setTransform(dpr, …)
      const k = t.a || 1;
      (c.__texts ||= []).push({ text: String(text), x: (t.a * x + t.e) / k, y: (t.d * y + t.f) / k,
        w: m.width * (t.a / k), align: this.textAlign, n: c.__draws || 0 });
      return orig.call(this, text, x, y, ...rest);
    };
    const origClear = CanvasRenderingContext2D.prototype.clearRect;
    CanvasRenderingContext2D.prototype.clearRect = function (...a) {
      // a redraw starts with clearRect: keep only the last drawing's texts
      this.canvas.__texts = [];
      return origClear.apply(this, a);
    };
  });
}

// What is drawn inside each cell: every text below the column-label band and right of the
// row labels, put in the cell its anchor falls in, with the horizontal extent of the union.
// Cell geometry from the drawing itself: the column labels are centred over their columns
// (one per column when the cells are this wide), so their spacing is the cell width; rows are
// as tall as wide unless the wrapper says otherwise (data-cell-h).
async function cellTexts(page, testid) {
  return byTestId(page, testid).evaluate((el) => {
    const c = el.querySelector('canvas.heatmap-canvas');
    const rows = Number(el.dataset.rows), cols = Number(el.dataset.cols);
    const labelH = 22;
    const heads = (c.__texts || []).filter((r) => r.align === 'center' && r.y < labelH).sort((a, b) => a.x - b.x);
    const cw = heads[1].x - heads[0].x, labelW = heads[0].x - cw / 2;
    const ch = Number(el.dataset.cellH) || cw;
    const cells = new Map();
    for (const r of c.__texts || []) {
      if (r.y <= labelH || r.x < labelW) continue;
      const left = r.align === 'center' ? r.x - r.w / 2 : r.align === 'right' ? r.x - r.w : r.x;
      const j = Math.floor((left + 0.5 - labelW) / cw), i = Math.floor((r.y - labelH) / ch);
      const k = `${i},${j}`;
      const e = cells.get(k) || { i, j, text: '', left: Infinity, right: -Infinity };
      e.text += r.text; e.left = Math.min(e.left, left); e.right = Math.max(e.right, left + r.w);
      cells.set(k, e);
    }
    return { cw, rows, cols, labelW, cells: [...cells.values()] };
  });
}

let b;
before(async () => { b = await launch(); await recordCanvasText(b.context); });
after(async () => { await b?.close(); });

for (const lang of LANGS) {
  describe(`heatmap ${lang}`, () => {
    test(`${lang}: large values fit their cells; colour-bar labels apart; exact values in the table`, T, async () => {
      for (const [width, query] of [[1280, BIG], [360, BIG], [1280, HUGE], [360, HUGE]]) {
        const page = await openLesson(b, lang, `${query}#s2`, { viewport: { width, height: 900 } });
        for (const id of ['s2-scores', 's2-out']) {
          await byTestId(page, id).scrollIntoViewIfNeeded();
          const g = await cellTexts(page, id);
          assert.equal(g.cells.length, g.rows * g.cols, `${id}: a number in every cell at ${width} px`);
          for (const e of g.cells) {
            const l = g.labelW + e.j * g.cw, r = l + g.cw;
            assert.ok(e.left >= l + 1 && e.right <= r - 1,
              `${lang} ${width}px ${id} (${query}): "${e.text}" spans ${e.left.toFixed(1)}–${e.right.toFixed(1)} px, its cell ${l.toFixed(1)}–${r.toFixed(1)}`);
          }
          // colour bar: low label, bar, high label side by side, none overlapping
          const boxes = await byTestId(page, id).locator('.heatmap-legend-ltr > *').evaluateAll((els) =>
            els.map((e) => { const r = e.getBoundingClientRect(); return { l: r.left, r: r.right, t: e.textContent }; }));
          assert.equal(boxes.length, 3);
          const sorted = [...boxes].sort((a, c) => a.l - c.l);
          for (let i = 1; i < sorted.length; i++) {
            assert.ok(sorted[i].l >= sorted[i - 1].r - 0.5, `${lang} ${width}px ${id}: legend "${sorted[i - 1].t}" overlaps "${sorted[i].t}"`);
          }
          for (const bx of boxes) assert.ok(bx.l >= 0 && bx.r <= width, `${id}: legend label "${bx.t}" on screen`);
        }
        // the table keeps the exact value (two decimals): row "sat", column "sat" of the scores
        const vals = await heatmapValues(page, 's2-scores');
        const ref = await page.evaluate(async ({ huge }) => {
          const { loadEngine } = await import('/js/engine.mjs');
          const { DEFAULT, computeExample } = await import('/js/lesson/worked-example.mjs');
          const e = await loadEngine();
          const W = { rows: 3, cols: 2, data: Float32Array.from([100, 100, 100, 100, 100, 100]) };
          const x = huge ? { rows: 4, cols: 3, data: new Float32Array(12).fill(100) } : DEFAULT.x;
          const r = await computeExample(e, { ...DEFAULT, x, Wq: W, Wk: W });
          return Array.from(r.scores.data);
        }, { huge: query === HUGE }).then((a) => a);
        assert.ok(ref[10] > 1e4, 'the example really has large values');
        assert.ok(Math.abs(vals[2][2] - ref[10]) <= 0.005 * Math.max(1, ref[10] / 1e6),
          `table: the exact score with two decimals (${vals[2][2]} vs ${ref[10]})`);
        const texts = await heatmapTexts(page, 's2-scores');
        assert.match(texts[2][2], lang === 'fa' ? /^[\u200e\u06f0-\u06f9\u066b\u066c]+$/ : /^[\u200e\u0660-\u0669\u066b\u066c]+$/,
          `table in the page numerals, all digits (${texts[2][2]})`);
        await page.close();
      }
    });

    test(`${lang}: Enter explains a cell and the arrows still move between cells`, T, async () => {
      const page = await openLesson(b, lang, '#s2');
      const canvas = byTestId(page, 's2-weights-canvas');
      await canvas.focus();
      const live = byTestId(page, 's2-weights').locator('[aria-live]');
      const first = await live.textContent();
      await page.keyboard.press('Enter');
      const steps = byTestId(page, 's2-steps');
      await assert.doesNotReject(steps.locator('h4').waitFor(), 'Enter shows the explanation');
      assert.equal(await steps.getAttribute('aria-live'), 'polite', 'the explanation is a live region');
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 's2-weights-canvas',
        'focus stays on the heatmap after Enter');
      await page.keyboard.press('ArrowRight');
      const second = await live.textContent();
      assert.notEqual(second, first, 'ArrowRight after Enter moves to the next cell');
      // the current cell's ring (a box over the canvas, not drawn in it) sits on cell (0, 1)
      // and goes when the focus leaves
      // (columns run left to right, LTR stage: the first starts after the row labels, at the
      // canvas's width less the columns and its 2 px of border)
      const ring = () => page.evaluate(() => {
        const hm = document.querySelector('[data-testid="s2-weights"]');
        const c = hm.querySelector('canvas').getBoundingClientRect(), r = hm.querySelector('.heatmap-cursor');
        const b = r.getBoundingClientRect(), w = Number(hm.dataset.cellW);
        return { hidden: r.hidden || b.width === 0, w, left: b.left - c.left, width: b.width, firstCol: c.width - 2 - Number(hm.dataset.cols) * w };
      });
      const at = await ring();
      assert.equal(at.hidden, false, 'the current cell is outlined');
      assert.ok(Math.abs(at.width - at.w) <= 1, `the ring is one cell wide (${at.width} vs ${at.w})`);
      assert.ok(Math.abs(at.left - (at.firstCol + at.w)) <= 1.5, `the ring is on the second column (${at.left} px from the canvas's left, expected ${at.firstCol + at.w})`);
      await page.keyboard.press('Enter');
      const h4 = await steps.locator('h4').textContent();
      assert.ok(h4.includes(exampleWords(lang)[1]), `the explanation follows the cell moved to, column ${exampleWords(lang)[1]} (got "${h4}")`);
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 's2-weights-canvas');
      await page.keyboard.press('Shift+Tab');
      assert.equal((await ring()).hidden, true, 'no ring once the focus has left the heatmap');
      await page.close();
    });

    test(`${lang}: on a phone, a tap names the tapped cell above the finger, clear of the labels, and its explanation shows`, T, async () => {
      const phone = await launchPhone({ width: 360 });
      try {
        const page = await openLesson(phone, lang, '#s2', { all: true });
        const text = await page.evaluate(async (l) => (await fetch(`/text/${l}.json`)).json(), lang);
        const hm = byTestId(page, 's2-weights');
        const canvas = byTestId(page, 's2-weights-canvas');
        await canvas.scrollIntoViewIfNeeded();
        const box = await canvas.boundingBox();
        const cw = Number(await hm.getAttribute('data-cell-w'));
        const labelW = box.width - 4 * cw - 2;
        // the cell of row "sat" (third), column "down" (fourth): not the keyboard's cell (0, 0)
        const x = box.x + labelW + 3.5 * cw, y = box.y + 22 + 2.5 * cw;
        await page.touchscreen.tap(x, y);
        await byTestId(page, 's2-steps').locator('h4').waitFor();
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const g = await page.evaluate(() => {
          const tip = document.querySelector('[data-testid="s2-weights"] .heatmap-tip');
          const c = document.querySelector('[data-testid="s2-weights-canvas"]').getBoundingClientRect();
          const t = tip.getBoundingClientRect();
          const h4 = document.querySelector('[data-testid="s2-steps"] h4').getBoundingClientRect();
          const bar = document.querySelector('[data-testid="where-bar"]');
          return { tip: tip.hidden ? null : tip.textContent, t: { l: t.left, r: t.right, b: t.bottom, top: t.top },
            c: { l: c.left, top: c.top }, h4: { top: h4.top, bottom: h4.bottom },
            barH: bar && !bar.hidden ? bar.getBoundingClientRect().bottom : 0, vh: innerHeight };
        });
        const values = await heatmapTexts(page, 's2-weights');
        assert.ok(g.tip, 'a tooltip shows after the tap');
        const [, , rowWord, colWord] = exampleWords(lang);   // the tokens in the reader's script
        assert.ok(g.tip.indexOf(rowWord) >= 0 && g.tip.indexOf(colWord) > g.tip.indexOf(rowWord),
          `the tooltip names the tapped cell, row ${rowWord} and column ${colWord} (got "${g.tip}")`);
        assert.ok(g.tip.includes(values[2][3].replace(/\u200e/g, '')), `with its value ${values[2][3]} (got "${g.tip}")`);
        assert.ok(g.t.l >= g.c.l + labelW - 0.5, `the tooltip (${g.t.l.toFixed(0)}–${g.t.r.toFixed(0)}) is clear of the row labels (cells from ${(g.c.l + labelW).toFixed(0)})`);
        const cellTop = g.c.top + 22 + 2 * cw;
        assert.ok(g.t.b <= cellTop + 0.5, `the tooltip is above the tapped cell (tooltip bottom ${g.t.b.toFixed(0)}, cell top ${cellTop.toFixed(0)})`);
        assert.ok(cellTop >= g.barH && cellTop + cw <= g.vh, `the tapped cell is on screen (${cellTop.toFixed(0)}, bar ${g.barH.toFixed(0)})`);
        assert.ok(g.h4.top >= g.barH && g.h4.bottom <= g.vh, `the explanation's title is on screen (${g.h4.top.toFixed(0)}–${g.h4.bottom.toFixed(0)} of ${g.vh})`);
        assert.notEqual(await page.evaluate(() => document.activeElement?.dataset.testid), 's2-steps',
          'the tap leaves the focus with the heatmap, not on the explanation box');
        // the hint above the explanation speaks of tapping on a touch screen
        const hint = byTestId(page, 's2-cell-hint');
        assert.equal(normalise(await hint.innerText()), normalise(text['s2.tapHint'] ?? 's2.tapHint'), 'the touch wording of the hint');
        await page.close();
      } finally { await phone.close(); }
    });
  });
}
