// Practice items come from the text files (web/js/practice/items.mjs): the deck, the
// multiple-choice questions and the myths are the ids the text holds, in text order, the
// same in every language; an item added to the text appears with no code change.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { itemIds } from '../../web/js/practice/items.mjs';
import { loadTextDir } from '../../build-scripts/text-checks.mjs';
import { languageCodes } from '../../web/js/i18n/languages.mjs';
import { LESSON_SECTIONS } from '../../web/js/practice/lesson-links.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { texts } = loadTextDir(path.join(REPO, 'web', 'text'));

test('every language has the same cards, questions and myths, each with a lesson link', () => {
  const [first, ...rest] = languageCodes();
  for (const area of ['cards', 'quiz', 'myth']) {
    const ids = itemIds(Object.keys(texts[first]), area);
    assert.ok(ids.length >= 10, `${area}: ${ids.length} items`);
    assert.ok(!ids.includes('ui'));
    for (const lang of rest) assert.deepEqual(itemIds(Object.keys(texts[lang]), area), ids, `${area} in ${lang}`);
    for (const id of ids) assert.ok(LESSON_SECTIONS[area][id], `${area}.${id} has no lesson link`);
  }
  // numeric quiz generators have prompts, not stems: they are not multiple-choice items
  assert.ok(!itemIds(Object.keys(texts[first]), 'quiz').includes('softmax-two'));
});

test('an item added to the text is an item; order is the text order', () => {
  const keys = ['cards.ui.title', 'cards.c02.q', 'cards.c02.a', 'cards.c01.q', 'cards.new-one.q', 'cards.new-one.a', 'cards.c03.a'];
  assert.deepEqual(itemIds(keys, 'cards'), ['c02', 'c01', 'new-one'], 'c03 has no question: not a card');
  assert.deepEqual(itemIds(['myth.m11.myth', 'myth.m11.fact', 'myth.ui.myth'], 'myth'), ['m11']);
  assert.throws(() => itemIds([], 'nope'), /unknown area/);
});
