// The language registry (web/js/i18n/languages.mjs): its separators and digits are what Intl writes,
// lookups refuse inherited names, and an unknown code falls back to the default edition.
import test from 'node:test';
import assert from 'node:assert/strict';
import { LANGUAGES, language, isLanguage, languageCodes, defaultLanguage, otherLanguages, numberLocale, digitZero, preferredLanguage } from '../../web/js/i18n/languages.mjs';

test('every entry has the fields the build and the pages read', () => {
  for (const l of LANGUAGES) {
    for (const f of ['code', 'autonym', 'dir', 'intlLocale', 'numberingSystem', 'decimal', 'group', 'font', 'listSeparator', 'notANumber', 'textLoadFailed']) {
      assert.equal(typeof l[f], 'string', `${l.code}.${f}`);
      assert.ok(l[f].length > 0, `${l.code}.${f} empty`);
    }
    assert.match(l.dir, /^(rtl|ltr)$/);
    assert.equal(typeof l.text.wrongLetters, 'object');
  }
  assert.equal(new Set(languageCodes()).size, LANGUAGES.length, 'codes are unique');
});

test('decimal and group separators and the zero digit agree with Intl', () => {
  for (const l of LANGUAGES) {
    const parts = new Intl.NumberFormat(numberLocale(l.code)).formatToParts(1234.5);
    assert.equal(parts.find((p) => p.type === 'decimal').value, l.decimal, `${l.code} decimal`);
    assert.equal(parts.find((p) => p.type === 'group').value, l.group, `${l.code} group`);
    const zero = String.fromCodePoint(digitZero(l.code));
    assert.equal(new Intl.NumberFormat(numberLocale(l.code)).format(10).slice(-1), zero);
    assert.equal(new Intl.NumberFormat(numberLocale(l.code, true)).format(10), '10', 'Latin digits on request');
  }
  assert.equal(digitZero('fa'), 0x06f0);
  assert.equal(digitZero('ar'), 0x0660);
});

test('lookups: own codes only, unknown → default, others exclude the page language', () => {
  assert.equal(isLanguage('fa'), true);
  for (const bad of ['constructor', 'toString', '__proto__', '', null, undefined, 'FA', 'en']) assert.equal(isLanguage(bad), false, String(bad));
  assert.equal(language('nope').code, defaultLanguage());
  assert.equal(language('constructor').code, defaultLanguage());
  for (const c of languageCodes()) {
    const others = otherLanguages(c).map((l) => l.code);
    assert.ok(!others.includes(c));
    assert.equal(others.length, LANGUAGES.length - 1);
  }
});

test('the browser\'s language list picks an edition by its primary subtag, in order', () => {
  assert.equal(preferredLanguage(['ar-EG', 'en']), 'ar');
  assert.equal(preferredLanguage(['en-US', 'FA-ir', 'ar']), 'fa');
  assert.equal(preferredLanguage(['en', 'de']), null);
  assert.equal(preferredLanguage(['arc', 'fas']), null, 'not a prefix match');
  assert.equal(preferredLanguage(undefined), null);
  assert.equal(preferredLanguage([null, 7, 'ar']), 'ar');
});
