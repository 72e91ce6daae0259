// Reading time per chapter (reading-time.mjs): computed from the text files, with the keys a
// reader does not read on the way (errors, click-only steps, closed folds) left out.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countWords, sectionWords, readingMinutes, chapterMinutes, FOLDED, WORDS_PER_MINUTE } from '../../web/js/lesson/reading-time.mjs';
import { loadTextDir } from '../../build-scripts/text-checks.mjs';
import { SECTIONS } from '../../web/js/lesson/lesson-sections.mjs';

const TEXT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../web/text');
const { texts } = loadTextDir(TEXT);

test('countWords: markup removed, a formula, a code span or a placeholder is one word', () => {
  assert.equal(countWords('سه واژهٔ ساده'), 3);
  assert.equal(countWords('ضرب $QK^\\top$ و `float32` و [n] توکن'), 7);
  assert.equal(countWords('**مسیر اصلی** درس'), 3);
  assert.equal(countWords(' — ، '), 0);
  assert.equal(countWords('١٢٣ كلمة'), 2);
});

test('sectionWords: only the section\'s own keys, minus errors, click-only steps and closed folds', () => {
  const dict = {
    's9.title': 'عنوان عنوان', 's9.p': 'یک دو سه', 's9.err.bad': 'خطا خطا خطا', 's9.step.one': 'گام گام',
    's90.p': 'نه نه', 's4.lead': 'الف ب', 's4.tA.p': 'جدول جدول جدول',
  };
  const get = (k) => dict[k];
  assert.equal(sectionWords(Object.keys(dict), get, 's9'), 3);
  assert.equal(sectionWords(Object.keys(dict), get, 's4'), 2);
  assert.ok(FOLDED.s4.includes('s4.tA.'));
});

test('readingMinutes rounds up to whole minutes, at least one', () => {
  assert.equal(readingMinutes(0), 1);
  assert.equal(readingMinutes(WORDS_PER_MINUTE), 1);
  assert.equal(readingMinutes(WORDS_PER_MINUTE + 1), 2);
  assert.equal(readingMinutes(500, 100), 5);
  assert.throws(() => readingMinutes(10, 0), RangeError);
});

for (const lang of Object.keys(texts)) {
  test(`${lang}: every chapter of the lesson has a reading time from its text; the core path is chapters 1–6 and the summary`, () => {
    const dict = texts[lang];
    const get = (k) => dict[k];
    const ids = SECTIONS.map((s) => s.id);
    const min = chapterMinutes(Object.keys(dict), get, ids);
    for (const id of ids) assert.ok(Number.isInteger(min[id]) && min[id] >= 1, `${id}: ${min[id]}`);
    // the long chapters read longer than the short ones (the numbers follow the text)
    assert.ok(min.s2 > min.s1, `s2 ${min.s2} > s1 ${min.s1}`);
    assert.ok(min.kvcache > min.summary, `kvcache ${min.kvcache} > summary ${min.summary}`);
    // s4's closed folds are not counted
    const all = Object.keys(dict).filter((k) => k.startsWith('s4.')).reduce((a, k) => a + countWords(dict[k]), 0);
    assert.ok(sectionWords(Object.keys(dict), get, 's4') < all * 0.75, 's4 without its folds');
    assert.deepEqual(SECTIONS.filter((s) => s.core).map((s) => s.id), ['s1', 's2', 's3', 's4', 's5', 's6', 'summary']);
    const core = SECTIONS.filter((s) => s.core).reduce((a, s) => a + min[s.id], 0);
    assert.ok(core >= 15 && core <= 60, `core path ${core} minutes`);
  });
}
