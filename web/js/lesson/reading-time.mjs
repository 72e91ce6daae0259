// Reading time per chapter, computed from the chapter's own text (never typed by hand): the
// words of its text keys (`<id>.…`) divided by a reading speed, rounded up to whole minutes.
// Not counted: what a reader does not read on the way through (error messages, the
// step-by-step lines shown only after a click on a cell, the controls' labels) and the
// contents of the folds that are closed by default (FOLDED: key prefixes per section).
// A formula, a code span or a live number counts as one word. Pure; tests/node/reading-time.test.mjs.
//
// Usage (sections/intro.mjs): chapterMinutes(textKeys(), rawText, ['s1', 's2', …]) → {s1: 3, …}

// Technical prose with formulas, read on a phone: slower than the 200–250 words a minute of
// plain prose.
export const WORDS_PER_MINUTE = 120;

// Keys that are not read on the way through the chapter.
const NOT_READ = [/\.err\./, /\.step\./, /\.ctl\./, /\.col\./, /\.busy$/, /Label$/, /\.hand\./];

// What the closed-by-default folds hold (widgets/fold.mjs), per section.
export const FOLDED = Object.freeze({
  intro: ['intro.pre.', 'intro.dot.', 'intro.mm.', 'intro.exp.', 'intro.ln.', 'intro.dist.', 'intro.ent.'],
  s3: ['s3.mem.'],
  s4: ['s4.tA.', 's4.tB.', 's4.seeds.', 's4.sweep.', 's4.grad.', 's4.fold.'],
});

/** Words in one text string: mini-markup removed; $math$, `code` and [placeholders] count one each. */
export function countWords(text) {
  const s = String(text)
    .replace(/\$[^$]*\$/g, ' x ')
    .replace(/`[^`]*`/g, ' x ')
    .replace(/\[[A-Za-z_][A-Za-z0-9_.]*\]/g, ' x ')
    .replace(/[*_]{2}/g, '');
  return s.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

/** The words a reader reads in section `id`: its text keys, minus NOT_READ and FOLDED. */
export function sectionWords(keys, get, id) {
  const prefix = `${id}.`;
  const folded = FOLDED[id] || [];
  let n = 0;
  for (const k of keys) {
    if (!k.startsWith(prefix) || k === `${id}.title`) continue;
    if (NOT_READ.some((re) => re.test(k)) || folded.some((f) => k.startsWith(f))) continue;
    n += countWords(get(k));
  }
  return n;
}

/** Whole minutes (at least 1) to read `words` at `wpm`. */
export function readingMinutes(words, wpm = WORDS_PER_MINUTE) {
  if (!(wpm > 0)) throw new RangeError('wpm must be positive');
  return Math.max(1, Math.ceil(words / wpm));
}

/** {id: minutes} for the given sections. */
export function chapterMinutes(keys, get, ids, wpm = WORDS_PER_MINUTE) {
  return Object.fromEntries(ids.map((id) => [id, readingMinutes(sectionWords(keys, get, id), wpm)]));
}
