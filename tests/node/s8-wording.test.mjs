// s8's query-tile label says «tile k of T» (walkthrough ar #8): its earlier «tile 1 (from 1 to
// 4)» sat above «tile 1 holds rows 1 to 3» and read as a row range.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const s8 = (lang) => JSON.parse(readFileSync(new URL(`../../web/text/${lang}/s8.json`, import.meta.url), 'utf8'));

test('the query-tile label is «k of T», not a from–to range, in both languages', () => {
  for (const lang of ['fa', 'ar']) {
    const label = s8(lang)['s8.tiles.qtOf'];
    assert.match(label, /\[k\]/, lang);
    assert.match(label, /\[last\]/, lang);
    assert.doesNotMatch(label, /\[first\]/, lang);
    assert.doesNotMatch(label, lang === 'fa' ? /\sتا\s/ : /\sإلى\s/, `${lang}: no «to» between the numbers`);
  }
});

// walkthrough ar #7: «one 64 × 64 tile», 64.75 KiB per worker and myth 2's 163 KiB, unexplained
test('the scratch sentence says what the scratch holds besides the score tile', () => {
  for (const lang of ['fa', 'ar']) {
    const scratch = s8(lang)['s8.big.scratch'];
    for (const sym of ['$V$', '$Q$', '$m$', '$\\ell$', '$n$']) assert.ok(scratch.includes(sym), `${lang}: ${sym}`);
  }
});
