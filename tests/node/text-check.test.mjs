// The build's prose and page checks (build-scripts/text-checks.mjs): each check
// must catch what it exists for, and the real text files must pass.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  checkKeyParity, checkLetters, checkLatin, checkMarkup, checkTexts, checkPageHtml, checkTakeaways,
  latinOutsideIsolates, loadTextDir, LATIN_ALLOW,
  checkTerms, checkTermsShape, variantRegExp, TERMS_FILE,
} from '../../build-scripts/text-checks.mjs';
import { languageCodes } from '../../web/js/i18n/languages.mjs';

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

test('key parity: plural forms other than .other may exist in one language only, .other may not', () => {
  // Arabic needs .one/.two/.few/.many, Persian only .other (i18n tPlural falls back to it)
  assert.deepEqual(checkKeyParity({
    fa: { 'a.keys.other': '[n] کلید' },
    ar: { 'a.keys.one': 'مفتاح', 'a.keys.two': 'مفتاحان', 'a.keys.few': '[n] مفاتيح', 'a.keys.other': '[n] مفتاح' },
  }), []);
  const errs = checkKeyParity({
    fa: { 'b.keys.other': '[n] کلید' },
    ar: { 'b.keys.one': 'مفتاح', 'b.keys.few': '[n] مفاتيح' },
  });
  assert.match(errs.join('\n'), /"b\.keys\.other" exists in fa but not in ar/);
  assert.equal(errs.length, 1);
  assert.match(checkKeyParity({ fa: {}, ar: { 'c.keys.one': 'مفتاح' } }).join('\n'),
    /"c\.keys\.one" exists in ar but not in fa/);   // no .other in fa to fall back to
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

test('markup: a section title with $…$ math is reported (plain-text copies would show raw TeX)', () => {
  assert.equal(checkMarkup('fa', { 's4.title': 'چرا بر $\\sqrt{d_k}$ تقسیم می‌کنیم؟' }).length, 1);
  assert.deepEqual(checkMarkup('fa', { 's4.title': 'چرا بر جذر پهنا تقسیم می‌کنیم؟', 's4.lead': 'بر $\\sqrt{d_k}$' }), []);
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

// ---------------------------------------------------------------- terminology (issue 11)
const FA_TERMS = { terms: [
  { use: 'مقدار نمایی', avoid: ['نما', 'نمای'], note: 'نما یعنی توان' },
  { use: 'مجاز', avoid: ['دیدنی'] },
  { use: '$\\ell$', avoid: ['$l$'] },
] };
const AR_TERMS = { terms: [
  { use: 'غيبيبايت', avoid: ['جيبيبايت'] },
  { use: 'تُقارَن', avoid: ['تُوازَن'] },
  { use: '`float16`', avoid: ['`fp16`'], except: ['s3.bytes'] },
] };

test('terms: a forbidden variant fails with the file, the key, the variant and the term to use', () => {
  const errs = checkTerms('fa', { 's2.step.maxNote': 'موتور پیش از نما گرفتن، بیشینه را کم می‌کند.' }, FA_TERMS, { 's2.step.maxNote': 's2.json' });
  assert.equal(errs.length, 1);
  assert.match(errs[0], /^fa\/s2\.json "s2\.step\.maxNote": «نما» is a forbidden variant; use «مقدار نمایی» \(نما یعنی توان\)/);
  assert.match(errs[0], /پیش از نما گرفتن/); // the words around it, to find it quickly
  // every occurrence is reported, each once (not once per variant that overlaps it)
  assert.equal(checkTerms('fa', { k: 'نمای هر امتیاز و جمع نما و کلید دیدنی' }, FA_TERMS).length, 3);
  assert.equal(checkTerms('fa', { k: 'مجموع جاری $l$ و $l$' }, FA_TERMS).length, 2);
});

test('terms: Persian variants match whole words only (no hit inside نمایی, نمایش or across a ZWNJ)', () => {
  const ok = { a: 'مقدار نمایی هر امتیاز', b: 'نمایش وزن‌ها', c: 'نما‌ها را ببینید', d: 'ناپدیدنی', e: 'مجموع جاری $\\ell$' };
  assert.deepEqual(checkTerms('fa', ok, FA_TERMS), []);
  const re = variantRegExp('fa', 'نما');
  for (const [s, hit] of [['نما', true], ['(نما)', true], ['«نما»', true], ['نمایی', false], ['پیش‌نما', false], ['آنمای', false]]) {
    re.lastIndex = 0;
    assert.equal(re.test(s), hit, s);
  }
});

test('terms: Arabic variants are found after joined proclitics and with the accusative ending, not inside other words', () => {
  const bad = { a: '٦٤ جيبيبايت', b: 'مقيسة بالجيبيبايت', c: 'كم جيبيبايتًا؟', d: 'حين تبحث كلمة أخرى تُوازَن', e: 'لتُوازَن به', f: 'بصيغة `fp16`' };
  const errs = checkTerms('ar', bad, AR_TERMS);
  assert.deepEqual(errs.map((e) => e.match(/^ar "(\w)"/)[1]), ['a', 'b', 'c', 'd', 'e', 'f']);
  // "exact": no proclitic or ending, for a variant that differs from the term only by one
  const exact = { terms: [{ use: 'كم ميغابايتًا', avoid: ['كم ميغابايت'], exact: true }] };
  assert.equal(checkTerms('ar', { a: 'كم ميغابايت تشغل؟' }, exact).length, 1);
  assert.deepEqual(checkTerms('ar', { a: 'كم ميغابايتًا تشغل؟' }, exact), []);
  // «التوازن» (balance) is another word; the listed exception may name the other form once
  assert.deepEqual(checkTerms('ar', { a: 'كلما اختلّ التوازن', 's3.bytes': '`float16` (`fp16`)' }, AR_TERMS), []);
});

test('terms: a malformed terms file is an error, not a silently disabled check', () => {
  assert.equal(checkTermsShape('fa', {}).length, 1);
  assert.equal(checkTermsShape('fa', { terms: [{ use: 'x', avoid: [] }] }).length, 1);
  assert.equal(checkTermsShape('fa', { terms: [{ avoid: ['y'] }] }).length, 1);
  assert.match(checkTerms('fa', { k: 'نما' }, { terms: [{ use: 'x', avoid: 'نما' }] })[0], /"avoid" must be a non-empty list/);
});

test('terms: the real terms files are well formed, kept out of the page text, and the real prose follows them', () => {
  const { texts, terms, origin, errors } = loadTextDir(path.join(ROOT, 'web', 'text'));
  assert.deepEqual(errors, []);
  for (const lang of languageCodes()) {
    assert.ok(terms[lang], `${lang}/${TERMS_FILE} loaded`);
    assert.deepEqual(checkTermsShape(lang, terms[lang]), []);
    assert.ok(terms[lang].terms.length >= 15, `${lang}: one entry per concept of the reviews`);
    assert.ok(!('terms' in texts[lang]), `${lang}: ${TERMS_FILE} is not merged into the page text`);
    assert.ok(!Object.values(origin[lang]).includes(TERMS_FILE));
    assert.deepEqual(checkTerms(lang, texts[lang], terms[lang], origin[lang]), []);
  }
});

test('make-site fails (exit 1) and names file, key and variant when prose uses a forbidden variant', () => {
  // a throwaway copy of the parts make-site reads, with one forbidden variant put back
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'terms-'));
  try {
    fs.cpSync(path.join(ROOT, 'build-scripts'), path.join(tmp, 'build-scripts'), { recursive: true });
    fs.cpSync(path.join(ROOT, 'web'), path.join(tmp, 'web'), { recursive: true });
    const file = path.join(tmp, 'web', 'text', 'fa', 's2.json');
    const dict = JSON.parse(fs.readFileSync(file, 'utf8'));
    dict['s2.step.exp'] = 'نمای هر امتیاز: [calc]';
    fs.writeFileSync(file, JSON.stringify(dict, null, 1));
    const run = () => spawnSync(process.execPath, [path.join(tmp, 'build-scripts', 'make-site.mjs'), '--check-only'], { encoding: 'utf8' });
    const r = run();
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /fa\/s2\.json "s2\.step\.exp": «نمای» is a forbidden variant; use «مقدار نمایی»/);
    // the same copy without the variant passes
    dict['s2.step.exp'] = 'مقدار نمایی هر امتیاز: [calc]';
    fs.writeFileSync(file, JSON.stringify(dict, null, 1));
    const ok = run();
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('bidi: arithmetic on numbers or [placeholders] sits in an LTR isolate (`…` or $…$), never bare in RTL prose', () => {
  // Left to the bidi algorithm, «[a] × [b] = [c]» in an RTL paragraph shows its operands in
  // right-to-left order; the native reviews of 2026-12-01 found seven such equations.
  const { texts } = loadTextDir(path.join(ROOT, 'web', 'text'));
  const operand = String.raw`(?:\[[A-Za-z_][\w.]*\]|[0-9۰-۹٠-٩][0-9۰-۹٠-٩٬٫.,]*)`;
  const bare = new RegExp(`${operand}\\s*[×+=−÷]\\s*${operand}`);
  const found = [];
  for (const lang of languageCodes()) {
    for (const [key, value] of Object.entries(texts[lang])) {
      const outside = String(value).replace(/`[^`]*`/g, ' ').replace(/\$[^$]*\$/g, ' ');
      if (bare.test(outside)) found.push(`${lang} ${key}: ${value}`);
    }
  }
  assert.deepEqual(found, []);
});

test('fa digits: a value given to a symbol is prose (Persian digits, outside $…$); only formulas keep Latin digits', () => {
  // «$d_k = 2$» showed a Latin 2 next to «$d_k$ = ۶۴» in the same kind of sentence (phone walkthrough 2026-12-05)
  const { texts } = loadTextDir(path.join(ROOT, 'web', 'text'));
  const valueInMath = /\$\s*[A-Za-z\\{}_ ]+\s*=\s*-?[0-9][0-9.]*\s*\$|\$\s*-?[0-9][0-9.]*\s*\$/;
  const found = Object.entries(texts.fa).filter(([k, v]) => !k.startsWith('_') && valueInMath.test(String(v).replace(/`[^`]*`/g, ' ')));
  assert.deepEqual(found.map(([k]) => k), []);
  assert.ok(valueInMath.test('$H_{kv} = 1$') && valueInMath.test('$2$') && !valueInMath.test('$e^{0}=1$') && !valueInMath.test('$e^{-\\infty}=0$'));
});

test('fa terms: the chapters 10–12 terms are enforced (a planted variant of each fails)', () => {
  const { terms } = loadTextDir(path.join(ROOT, 'web', 'text'));
  const planted = {
    'x.prefill': 'در پیش‌پُر همهٔ توکن‌ها', 'x.cache': 'کش کلید و مقدار بزرگ است', 'x.window': 'پنجرهٔ کشویی',
    'x.reach': 'بُرد پس از سه لایه', 'x.full': 'در مقایسه با توجه کامل', 'x.mask': 'بی‌ماسک', 'x.ops': 'تعداد ضرب‌ها',
    'x.hbm': 'حافظهٔ اصلی کارت', 'x.gqa': 'توجه کوئری گروهی', 'x.mqa': 'توجه چندکوئری', 'x.intensity': 'شدت حسابی',
  };
  const errors = checkTerms('fa', planted, terms.fa);
  for (const key of Object.keys(planted)) assert.ok(errors.some((e) => e.includes(`"${key}"`)), `${key} is caught`);
  // and the real prose keeps «بُرد» only for the range of a number format
  assert.deepEqual(checkTerms('fa', { 's2.weightsText': 'بُردی محدود', 's7.calc.formula': 'همان بُرد' }, terms.fa), []);
});

// Every lesson section up to the last chapter ends with an "in short" note (pages/lesson.mjs),
// the summary and the sources with none: a build check over the text and lesson-sections.mjs.
test('takeaways: each section up to the last chapter has one that says something; the way out has none', () => {
  const { texts } = loadTextDir(path.join(ROOT, 'web', 'text'));
  for (const lang of ['fa', 'ar']) assert.deepEqual(checkTakeaways(lang, texts[lang]), [], lang);
  const fa = { ...texts.fa };
  delete fa['s5.takeaway'];
  fa['s6.takeaway'] = 'کوتاه';
  fa['s7.takeaway'] = fa['s7.takeaway'] + ' [n]';
  fa['refs.takeaway'] = fa['s8.takeaway'];
  delete fa['site.takeaway'];
  assert.deepEqual(checkTakeaways('fa', fa), [
    'fa: "site.takeaway" (the note\'s title) is missing',
    'fa: section s5 has no "s5.takeaway"',
    'fa "s6.takeaway": too short to say anything',
    'fa "s7.takeaway": a placeholder, which the note has no value for',
    'fa "refs.takeaway": the refs section comes after the last chapter and has no takeaway',
  ]);
});
