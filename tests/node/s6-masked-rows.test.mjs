// s6 with more queries than keys and the bottom-right diagonal: the first rows see no key and
// show rows of zero weights that add up to 0, not 1 (walkthrough fa #20). The sentence the
// page shows for them says so, in both languages.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const s6 = (lang) => JSON.parse(readFileSync(new URL(`../../web/text/${lang}/s6.json`, import.meta.url), 'utf8'));

test('the masked-rows sentence explains why those rows add up to zero', () => {
  assert.match(s6('fa')['s6.rect.masked'], /جمعشان صفر است، نه یک/);
  assert.match(s6('ar')['s6.rect.masked'], /مجموعها صفر لا واحد/);
  for (const lang of ['fa', 'ar']) assert.match(s6(lang)['s6.rect.masked'], /\[rows\]/);
});
