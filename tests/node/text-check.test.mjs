// The build's prose and page checks (build-scripts/text-checks.mjs): each check
// must catch what it exists for, and the real text files must pass.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  checkKeyParity, checkLetters, checkLatin, checkMarkup, checkTexts, checkPageHtml,
  latinOutsideIsolates, loadTextDir, LATIN_ALLOW,
} from '../../build-scripts/text-checks.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('key parity: a key in one language only is reported, notes are ignored', () => {
  const errs = checkKeyParity({
    fa: { 'a.x': 'الف', 'a.y': 'ب', _note: 'fa only' },
    ar: { 'a.x': 'أ', 'a.z': 'ج' },
  });
  assert.equal(errs.length, 2);
  assert.match(errs.join('\n'), /"a\.y" exists in fa but not in ar/);
  assert.match(errs.join('\n'), /"a\.z" exists in ar but not in fa/);
  assert.deepEqual(checkKeyParity({ fa: { k: 'ی' }, ar: { k: 'ي' } }), []);
});

test('letters: Arabic yeh/kaf in Persian and Persian yeh/keheh in Arabic fail', () => {
  assert.equal(checkLetters('fa', { k: 'كتاب' }).length, 1);          // Arabic kaf in fa
  assert.equal(checkLetters('fa', { k: 'علي' }).length, 1);           // Arabic yeh in fa
  assert.deepEqual(checkLetters('fa', { k: 'کتاب علی' }), []);
  assert.equal(checkLetters('ar', { k: 'کتاب' }).length, 1);          // Persian keheh in ar
  assert.equal(checkLetters('ar', { k: 'علی' }).length, 1);           // Persian yeh in ar
  assert.deepEqual(checkLetters('ar', { k: 'كتاب علي' }), []);
});

test('Latin words are allowed only in `isolates`, $math$, [placeholders] or the allow-list', () => {
  assert.deepEqual(latinOutsideIsolates('ضرب `dot product` در $QK^\\top$ برای [n] توکن'), []);
  assert.deepEqual(latinOutsideIsolates('ماتریس Q و K'), []);                 // allow-listed
  assert.deepEqual(latinOutsideIsolates('این the cat است'), ['the', 'cat']);
  assert.ok(LATIN_ALLOW.has('softmax'));
  const errs = checkLatin('ar', { ok: 'هذا `is_causal=True`', bad: 'استعمل attention mask هنا' });
  assert.equal(errs.length, 1);
  assert.match(errs[0], /"bad".*attention, mask/);
});

test('markup: unbalanced backtick, $ or ** is reported', () => {
  assert.equal(checkMarkup('fa', { a: 'یک `x' }).length, 1);
  assert.equal(checkMarkup('fa', { a: 'یک $x' }).length, 1);
  assert.equal(checkMarkup('fa', { a: 'یک **x' }).length, 1);
  assert.deepEqual(checkMarkup('fa', { a: '**یک** `x` و $y$ و \\$' }), []);
});

test('pages: inline script, style attribute, <style> and on* handlers fail; module src passes', () => {
  const ok = '<html><head><script type="module" src="../js/pages/lesson.mjs"></script></head><body><p>x</p></body></html>';
  assert.deepEqual(checkPageHtml(ok), []);
  assert.equal(checkPageHtml('<script>alert(1)</script>').length, 1);
  assert.equal(checkPageHtml('<p style="color:red">x</p>').length, 1);
  assert.equal(checkPageHtml('<style>p{}</style>').length, 1);
  assert.equal(checkPageHtml('<button onclick="x()">x</button>').length, 1);
  assert.deepEqual(checkPageHtml('<!-- <script>old</script> --><p>x</p>'), []);
});

test('the real web/text files pass every check', () => {
  const { texts, errors } = loadTextDir(path.join(ROOT, 'web', 'text'));
  assert.deepEqual(errors, []);
  assert.deepEqual(checkTexts(texts), []);
  for (const lang of ['fa', 'ar']) {
    for (const key of ['site.title', 's1.title', 's2.title', 's3.title', 's9.title', 'err.engine.EngineLoad']) {
      assert.ok(texts[lang][key], `${lang} ${key}`);
    }
  }
});

test('Persian prose uses the zero-width non-joiner where verbs and plurals need it', () => {
  const { texts } = loadTextDir(path.join(ROOT, 'web', 'text'));
  const mine = Object.entries(texts.fa).filter(([k]) => /^(site|err|s1|s2|s3|s9)\./.test(k));
  const all = mine.map(([, v]) => v).join('\n');
  // «می» glued to the verb with a plain space or nothing is the mark of careless Persian.
  assert.doesNotMatch(all, /(^|[\s«(])می (کند|شود|دهد|گیرد|بیند|ماند)/);
  assert.doesNotMatch(all, /(^|[\s«(])می(کند|شود|دهد|گیرد|بیند|ماند)/);
  assert.match(all, /می\u200cکند/);
  assert.match(all, /ماتریس\u200cها/);
});

test('the lesson templates carry no inline script or style', () => {
  for (const f of ['web/index.html', 'web/pages/lesson.html']) {
    assert.deepEqual(checkPageHtml(fs.readFileSync(path.join(ROOT, f), 'utf8'), f), []);
  }
});
