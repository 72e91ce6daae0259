// Count + noun in a live sentence: tPlural picks key.<Intl.PluralRules category> of the
// page language and falls back to key.other (Persian needs only .other; Arabic has six forms).
import test from 'node:test';
import assert from 'node:assert/strict';
import { setText, pluralKey, tPlural } from '../../web/js/i18n/i18n.mjs';

const ar = {
  'k.keys.one': 'مفتاحًا واحدًا',
  'k.keys.two': 'مفتاحين',
  'k.keys.few': '[n] مفاتيح',
  'k.keys.many': '[n] مفتاحًا',
  'k.keys.other': '[n] مفتاح',
};

test('Arabic: each count gets the form of its plural category', () => {
  setText('ar', ar);
  assert.equal(tPlural('k.keys', 1), 'مفتاحًا واحدًا');
  assert.equal(tPlural('k.keys', 2), 'مفتاحين');
  assert.equal(tPlural('k.keys', 4), '٤ مفاتيح');
  assert.equal(tPlural('k.keys', 10), '١٠ مفاتيح');
  assert.equal(tPlural('k.keys', 11), '١١ مفتاحًا');
  assert.equal(tPlural('k.keys', 99), '٩٩ مفتاحًا');
  assert.equal(tPlural('k.keys', 100), '١٠٠ مفتاح');
  assert.equal(tPlural('k.keys', 103), '١٠٣ مفاتيح');   // 3–10 mod 100 is "few" again
});

test('a category without its own key (Arabic zero) falls back to .other', () => {
  setText('ar', ar);
  assert.equal(pluralKey('k.keys', 0), 'k.keys.other');
  assert.equal(tPlural('k.keys', 0), '٠ مفتاح');
});

test('Persian: only .other is needed, every count uses it', () => {
  setText('fa', { 'k.keys.other': '[n] کلید' });
  for (const n of [1, 2, 4, 11]) assert.equal(pluralKey('k.keys', n), 'k.keys.other');
  assert.equal(tPlural('k.keys', 1), '۱ کلید');
});

test('extra params go through with the count', () => {
  setText('ar', { 'k.x.other': '[n] من [of]' });
  assert.equal(tPlural('k.x', 5, { of: 'الكل' }), '٥ من الكل');
});
