// The few numbers typed into the practice texts (card answers, quiz explanations) rather than
// filled in from the engine, checked against the engine (the Arabic lede promises it: «بضعة
// أعداد في شروح الأسئلة والبطاقات يتحقّق اختبارٌ من كلٍّ منها مقابل المحرّك نفسه»). Each
// check reads the numbers out of the text in both languages, so a text edited to a wrong
// number fails here as well as a changed engine.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { latinizeText } from '../../web/js/i18n/numerals.mjs';
import { loadEngine } from './engine-fixtures.mjs';

const engine = await loadEngine();
const text = (lang, file) => JSON.parse(readFileSync(new URL(`../../web/text/${lang}/${file}.json`, import.meta.url), 'utf8'));
// the numbers written in a string (page digits, ٬ grouping, ٫ decimals), outside placeholders
const numbersIn = (s) => (latinizeText(s.replace(/\[[A-Za-z0-9]+\]/g, '')).match(/\d[\d,]*(?:\.\d+)?/g) || [])
  .map((x) => Number(x.replace(/,/g, '')));
const bytes = async (n, bpe) => Number(await engine.scoreMatrixBytes({ n, bytesPerElement: bpe }));

for (const lang of ['fa', 'ar']) {
  const cards = text(lang, 'cards');
  const quiz = text(lang, 'quiz');

  test(`${lang}: 8,192 → 32,768 tokens is 16 times the score memory (cards c25/c26, quiz q18)`, async () => {
    const ratio = (await bytes(32768, 2)) / (await bytes(8192, 2));
    assert.equal(ratio, 16);
    assert.deepEqual(numbersIn(quiz['quiz.q18.stem']), [8192, 32768]);
    assert.ok(numbersIn(quiz['quiz.q18.o1']).includes(ratio), 'the right option says 16');
    assert.ok(numbersIn(quiz['quiz.q18.why']).includes(ratio), 'the explanation says 16');
    assert.ok(numbersIn(cards['cards.c26.q']).includes(32768));
    assert.ok(numbersIn(cards['cards.c25.q']).includes(8192));
    // Arabic also gives both sizes in MB (about 134 and 2,147 MB in float16)
    const mb = numbersIn(quiz['quiz.q18.why']).filter((x) => x > 100);
    if (mb.length) assert.deepEqual(mb, [Math.round((await bytes(8192, 2)) / 1e6), Math.round((await bytes(32768, 2)) / 1e6)]);
  });

  test(`${lang}: 131,072 tokens in float32 is exactly 64 GiB (card c29)`, async () => {
    assert.ok(numbersIn(cards['cards.c29.q']).includes(131072));
    assert.equal((await bytes(131072, 4)) / 2 ** 30, 64);
    assert.equal(numbersIn(cards['cards.c29.a'])[0], 64);
    // «128 thousand» read as 128,000 tokens: about 65.5 GB, the report's «65 GB»
    assert.ok(numbersIn(cards['cards.c29.a']).includes(128000));
    assert.equal(Math.floor((await bytes(128000, 4)) / 1e9), 65);
  });

  test(`${lang}: exp in float32 overflows past about 88.7 (card c18)`, () => {
    assert.ok(numbersIn(cards['cards.c18.a']).includes(88.7));
    // the engine's scores are float32: the overflow threshold is ln(FLT_MAX) = 88.72…
    assert.ok(Number.isFinite(Math.fround(Math.exp(88.72))) && Math.fround(Math.exp(88.73)) === Infinity);
    assert.equal(Math.round(Math.log(3.4028234663852886e38) * 10) / 10, 88.7);
  });
}
