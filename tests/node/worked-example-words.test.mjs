// Issue 21 item 11: the worked example speaks the reader's language. Checks the token lists
// (web/js/lesson/worked-example.mjs), that the prose of each edition names the tokens of its own
// sentence in the right roles (and no longer the English ones), and that the numbers are the
// ones of the English example: same x rows, same engine results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEngine, example, maxAbsDiff } from './engine-fixtures.mjs';
import { WORDS, WORD_SETS, exampleWords, tokenShown, DEFAULT, computeExample, at } from '../../web/js/lesson/worked-example.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LANGS = ['fa', 'ar'];
const SCRIPT = /^[\u0600-\u06ff\u200c]+$/;   // Arabic script (Persian letters included), ZWNJ

function texts(lang) {
  const dir = path.join(root, 'web/text', lang);
  const out = {};
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.json') && n !== 'terms.json')) {
    for (const [k, v] of Object.entries(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))) {
      if (!k.startsWith('_') && typeof v === 'string') out[k] = v;
    }
  }
  return out;
}

test('the token lists: four tokens in the reader\'s script; English as the preset', () => {
  assert.deepEqual([...WORD_SETS.en], ['the', 'cat', 'sat', 'down']);
  assert.deepEqual([...WORDS], [...WORD_SETS.en], 'WORDS stays the English sentence (code listings, fixtures)');
  assert.deepEqual([...exampleWords('fa')], ['گربه', 'روی', 'فرش', 'نشست']);
  assert.deepEqual([...exampleWords('ar')], ['القط', 'جلس', 'على', 'السجادة']);
  for (const lang of LANGS) {
    const w = exampleWords(lang);
    assert.equal(w.length, DEFAULT.x.rows, `${lang}: one token per row of x`);
    for (const t of w) assert.match(t, SCRIPT, `${lang}: «${t}» is in the reader's script`);
    assert.equal(new Set(w).size, 4, `${lang}: four different tokens (a row is named by its token)`);
    assert.deepEqual([...exampleWords(lang, 'en')], [...WORD_SETS.en], `${lang}: the preset gives English`);
  }
  assert.deepEqual([...exampleWords('xx')], [...WORD_SETS.en], 'an unknown language falls back to English');
  assert.deepEqual([...exampleWords('fa', 'toString')], [...exampleWords('fa')], 'only "en" is a preset');
  assert.throws(() => { exampleWords('fa').push('x'); }, TypeError, 'the lists cannot be changed by a caller');
  assert.equal(tokenShown('sat', (s) => `<${s}>`), '<sat>', 'a Latin token goes into an LTR isolate');
  assert.equal(tokenShown('فرش', (s) => `<${s}>`), '«فرش»', 'a token in the reader\'s script is quoted');
});

test('the prose names the tokens of its own sentence, not the English ones', () => {
  for (const lang of LANGS) {
    const t = texts(lang);
    const [w0, w1, w2, w3] = exampleWords(lang);
    const other = exampleWords(lang === 'fa' ? 'ar' : 'fa');
    let named = 0;
    for (const [k, v] of Object.entries(t)) {
      const english = v.match(/`(?:the cat sat down|the|cat|sat|down)`/g);
      if (k === 's2.words.en' || k === 's2.words.enNote') continue;   // the preset says what it is
      assert.equal(english, null, `${lang} ${k} still names the English token(s) ${english}`);
      for (const o of other) assert.ok(!v.includes(`«${o}»`), `${lang} ${k} names «${o}», a token of the other edition`);
      if (v.includes(`«${w0} ${w1} ${w2} ${w3}»`) || [w0, w1, w2, w3].some((w) => v.includes(`«${w}»`))) named++;
    }
    assert.ok(named >= 45, `${lang}: ${named} strings name the example's tokens (48 were changed)`);
    // the roles: row 3 (index 2) is the row the prose follows; row 1 is the hand exercise
    const has = (key, w) => assert.ok(t[key]?.includes(`«${w}»`), `${lang} ${key} names «${w}» (got ${t[key]})`);
    has('s2.satTitle', w2);
    has('s2.hand.q', w0);
    has('s2.hand.causalNote', w0);
    has('quiz.q04.o1', w2);
    has('quiz.q04.o2', w1);
    has('quiz.q04.o3', w0);
    has('practice.try.e6.c1', w2);
    has('practice.try.e6.c2', w1);
    has('practice.try.e6.c3', w3);
    has('summary.rem.sat', w2);
    has('s9.lsText', w2);
    has('s9.lsText', w3);
    assert.ok(t['s2.intro'].includes(`«${w0} ${w1} ${w2} ${w3}»`), `${lang} s2.intro gives the sentence in order`);
    // the English preset's note maps each English token to the reader's
    for (const [i, e] of WORD_SETS.en.entries()) {
      const note = t['s2.words.enNote'];
      assert.ok(note.includes(`\`${e}\``) && note.includes(`«${exampleWords(lang)[i]}»`), `${lang} s2.words.enNote pairs ${e} with its token`);
    }
  }
});

test('the numbers are those of the English example, computed by the engine', async () => {
  // x is the same four rows whatever the tokens are called
  // (each row as its digits: 4 rows of 3)
  const rows = Array.from({ length: DEFAULT.x.rows }, (_, i) =>
    Array.from(DEFAULT.x.data.slice(i * DEFAULT.x.cols, (i + 1) * DEFAULT.x.cols)).join(''));
  assert.deepEqual(rows, ['100', '010', '011', '001']);
  const engine = await loadEngine();
  const r = await computeExample(engine, { ...DEFAULT, causal: false });
  assert.equal(maxAbsDiff(Array.from(r.Q.data), Array.from(example.q.data)), 0, 'Q as the fixture');
  assert.equal(maxAbsDiff(Array.from(r.K.data), Array.from(example.k.data)), 0, 'K as the fixture');
  assert.equal(maxAbsDiff(Array.from(r.V.data), Array.from(example.v.data)), 0, 'V as the fixture');
  // row 3 («فرش» / «على», formerly «sat»): its own score 3/√2, the largest of its row
  assert.ok(Math.abs(at(r.scores, 2, 2) - 3 / Math.SQRT2) < 1e-6, `score ${at(r.scores, 2, 2)}`);
  const e = [0, 1, 2, 3].map((j) => Math.exp(at(r.scores, 2, j) - at(r.scores, 2, 2)));
  const w = 1 / e.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(at(r.weights, 2, 2) - w) < 1e-6, `self weight ${at(r.weights, 2, 2)} vs ${w}`);
});
