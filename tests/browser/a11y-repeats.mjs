// What the a11y tests (a11y-pages.mjs) let axe skip: markup that is an exact repeat of markup it
// checks. Also used by engine/bench/axe-profile.mjs --mark.

// Selector of what axe leaves out: the elements markRepeats marks.
export const SAME = '[data-axe-same]';

// Marks (data-axe-same, a test-only attribute set after the screenshots) the markup that is an
// exact repeat of markup axe checks anyway, so axe skips it. Two kinds, which were most of axe's
// time on the lesson (color-contrast alone: 64 s over the page, 33 s less without the heatmap
// tables, 36 s less without the formulas):
// 1. The rows of a heatmap's data table after its first two: widgets/heatmap-table.mjs makes every
//    body row in one loop (a th, then td / td.masked / td > button.cell-btn with an aria-label),
//    and no stylesheet tells rows apart (no :nth-child rule on tables). The caption, the head and
//    the first two rows of every table stay, and so does any later row holding a cell of a shape
//    (tags, classes, attribute names) the kept rows lack, e.g. the first masked cell of a band.
//    This replaces leaving chapter 13's whole 64 × 64 map out (now its head and rows are checked).
// 2. A formula (.katex) with the same markup (KaTeX's output is a function of the TeX) in the same
//    styled context (colour, size, weight, opacity and the background behind it: what the contrast
//    of its glyphs depends on) as one met earlier on the page. The lesson (fa) has 565 formulas of
//    13,763 elements; 271 differ by this key, and the repeats hold 5,445 of those elements.
// Returns the counts.
export async function markRepeats(page) {
  return page.evaluate(() => {
    const mark = (el) => el.setAttribute('data-axe-same', '');
    const shape = (el) => `${el.tagName}.${el.className}[${[...el.attributes].map((a) => a.name).filter((n) => n !== 'class').sort()}]` +
      `(${[...el.children].map(shape).join(',')})`;
    let rows = 0, formulas = 0;
    for (const table of document.querySelectorAll('.heatmap-table table')) {
      const seen = new Set();
      [...table.tBodies].flatMap((tb) => [...tb.rows]).forEach((tr, i) => {
        const cells = [...tr.cells].map(shape);
        if (i < 2 || cells.some((c) => !seen.has(c))) { for (const c of cells) seen.add(c); return; }
        mark(tr); rows++;
      });
    }
    const behind = (el) => {
      let opacity = 1;
      for (let e = el; e; e = e.parentElement) {
        const s = getComputedStyle(e);
        opacity *= Number(s.opacity);
        if (s.backgroundColor !== 'rgba(0, 0, 0, 0)' || s.backgroundImage !== 'none') return `${s.backgroundColor} ${s.backgroundImage} ${opacity}`;
      }
      return `none ${opacity}`;
    };
    const seenFormula = new Set();
    for (const k of document.querySelectorAll('.katex')) {
      const s = getComputedStyle(k);
      const key = [k.outerHTML, s.color, s.fontSize, s.fontWeight, behind(k)].join('\n');
      if (seenFormula.has(key)) { mark(k); formulas++; } else seenFormula.add(key);
    }
    return { rows, formulas, distinctFormulas: seenFormula.size };
  });
}
