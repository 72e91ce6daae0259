// Answer parsing in every numeral system and separator, and formatting per language.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  parseNumber, formatNumber, formatPercent, formatBytes, numberLocale, toLatinDigits, localizeDigits,
} from '../../web/js/i18n/numerals.mjs';

const ok = (s, value, opts) => {
  const r = parseNumber(s, opts);
  assert.deepEqual(r, { ok: true, value }, `parse ${JSON.stringify(s)}`);
};
const bad = (s, reason, opts) => {
  const r = parseNumber(s, opts);
  assert.deepEqual(r, { ok: false, reason }, `parse ${JSON.stringify(s)}`);
};

test('digits: Latin, Persian, Arabic-Indic, and a mix', () => {
  ok('123', 123);
  ok('۱۲۳', 123);
  ok('١٢٣', 123);
  ok('۱2٣', 123); // mixed systems are accepted on purpose (keyboard switching)
  ok('۰٫۲۵', 0.25);
  ok('٠٫٧٥', 0.75);
  ok('۹۸۷۶۵۴۳۲۱۰', 9876543210);
});

test('signs, whitespace and bidi marks', () => {
  ok('-2.5', -2.5);
  ok('−۲٫۵', -2.5); // U+2212
  ok('+3', 3);
  ok('  ٤٢ \t', 42);
  ok('\u200e\u22127', -7); // LRM as Intl writes it for fa
  ok('\u061c-٧', -7); // ALM as Intl writes it for ar
  ok('-0', 0);
  assert.ok(Object.is(parseNumber('-0').value, 0), '-0 normalised to 0');
  bad('-', 'invalid');
  bad('+-3', 'invalid');
  bad('- 3', 'invalid');
});

test('decimal separators ٫ . and a lone comma', () => {
  ok('3٫5', 3.5);
  ok('3.5', 3.5);
  ok('1,5', 1.5);
  ok('0,125', 0.125); // a leading 0 cannot be a thousands group
  ok('12,3456', 12.3456); // 4 digits after: not a group
  ok('.5', 0.5);
  ok('5.', 5);
  bad('1..2', 'invalid');
  bad('1.2.3', 'invalid');
  bad('1٫2.3', 'invalid');
  bad('.', 'invalid');
  bad('1/2', 'slash-decimal'); // not a decimal separator (fraction-looking); its own reason
  bad('1/2/3', 'invalid');
});

test('"1,234" is ambiguous and refused; grouping is accepted when unambiguous', () => {
  bad('1,234', 'ambiguous');
  bad('۱۲,۵۰۰', 'ambiguous');
  ok('1,234,567', 1234567);
  ok('1,234.5', 1234.5);
  ok('۱۲٬۳۴۵٫۵', 12345.5);
  ok('١٬٢٣٤', 1234); // ٬ is only ever a group separator
  ok('1٬234,567', 1234567);
  bad('1,23,456', 'invalid'); // groups must be 3 digits
  bad('1.234,5', 'invalid'); // separator after the decimal point
  bad('12٬34', 'invalid');
  bad('1234,567,8', 'invalid');
});

test('exponent notation', () => {
  ok('1e-3', 0.001);
  ok('2.5E3', 2500);
  ok('۲٫۵e۳', 2500);
  ok('1e+2', 100);
  ok('1e−2', 0.01);
  bad('1e', 'invalid');
  bad('e3', 'invalid');
  bad('1e2.5', 'invalid');
});

test('percent only when allowed; value divided by 100', () => {
  ok('25%', 0.25, { allowPercent: true });
  ok('۲۵٪', 0.25, { allowPercent: true });
  ok('٪۲۵', 0.25, { allowPercent: true });
  ok('12.5 %', 0.125, { allowPercent: true });
  ok('25', 25, { allowPercent: true });
  bad('25%', 'invalid');
  bad('%25%', 'invalid', { allowPercent: true });
  bad('%', 'invalid', { allowPercent: true });
});

test('empty, garbage, non-finite', () => {
  bad('', 'empty');
  bad('   ', 'empty');
  bad('abc', 'invalid');
  bad('12abc', 'invalid');
  bad('0x10', 'invalid');
  bad('1 000', 'space-group'); // refused, with a reason that says how to group
  bad('1 00', 'invalid');
  bad('NaN', 'not-finite');
  bad('Infinity', 'not-finite');
  bad('-∞', 'not-finite');
  bad(formatNumber(NaN, { lang: 'fa' }), 'not-finite');
  bad(formatNumber(NaN, { lang: 'ar' }), 'not-finite');
  bad(formatNumber(-Infinity, { lang: 'ar' }), 'not-finite');
  bad('1e999', 'not-finite');
  bad(null, 'invalid');
  bad(undefined, 'invalid');
  bad({}, 'invalid');
});

test('numberLocale per language and Latin-digit setting', () => {
  assert.equal(numberLocale('fa', false), 'fa-u-nu-arabext');
  assert.equal(numberLocale('ar', false), 'ar-u-nu-arab');
  assert.equal(numberLocale('fa', true), 'fa-u-nu-latn');
  assert.equal(numberLocale('ar', true), 'ar-u-nu-latn');
});

test('formatNumber uses the page digits and separators', () => {
  assert.equal(formatNumber(12345.505, { lang: 'fa' }), '۱۲٬۳۴۵٫۵۰۵');
  assert.equal(formatNumber(12345.505, { lang: 'ar' }), '١٢٬٣٤٥٫٥٠٥');
  assert.equal(formatNumber(12345.505, { lang: 'ar', latinDigits: true }), '12,345.505');
  assert.equal(formatNumber(0.123456, { lang: 'fa', maximumFractionDigits: 4 }), '۰٫۱۲۳۵');
});

test('formatNumber: NaN and ±Infinity get a word or symbol per language', () => {
  assert.equal(formatNumber(NaN, { lang: 'fa' }), 'NaN');
  assert.equal(formatNumber(NaN, { lang: 'ar' }), 'NaN');
  assert.equal(formatNumber(Infinity, { lang: 'fa' }), '∞');
  assert.match(formatNumber(-Infinity, { lang: 'fa' }), /^\u200e\u2212∞$/);
  assert.match(formatNumber(-Infinity, { lang: 'ar' }), /^\u061c-∞$/);
  assert.equal(formatNumber('12', { lang: 'fa' }), 'NaN', 'strings are not numbers');
});

test('formatted numbers parse back to the same value', () => {
  for (const lang of ['fa', 'ar']) {
    for (const latinDigits of [false, true]) {
      for (const x of [0, -1.5, 12345.678, -987654.321, 0.001]) {
        const s = formatNumber(x, { lang, latinDigits });
        const r = parseNumber(s);
        // Latin-digit grouping "12,345.678" has a decimal point, so it is not ambiguous.
        assert.deepEqual(r, { ok: true, value: x }, `${lang} ${latinDigits} ${s}`);
      }
      const p = formatPercent(0.51, { lang, latinDigits });
      assert.deepEqual(parseNumber(p, { allowPercent: true }), { ok: true, value: 0.51 }, p);
    }
  }
});

test('formatPercent and formatBytes', () => {
  assert.equal(formatPercent(0.51, { lang: 'fa' }), '۵۱٪');
  assert.equal(formatPercent(0.5125, { lang: 'fa' }), '۵۱٫۳٪');
  const b = formatBytes(3 * 2 ** 30, { lang: 'fa' });
  assert.deepEqual(b, { value: 3, unit: 'GiB', number: '۳' });
  assert.equal(formatBytes(1536, { lang: 'ar' }).number, '١٫٥');
  assert.equal(formatBytes(1536, { lang: 'ar' }).unit, 'KiB');
  assert.equal(formatBytes(512, {}).unit, 'B');
  assert.deepEqual(formatBytes(2.5e9, { unit: 'GB', latinDigits: true }), { value: 2.5, unit: 'GB', number: '2.5' });
  assert.throws(() => formatBytes(1, { unit: 'XB' }), /unknown unit/);
});

test('digit conversion helpers', () => {
  assert.equal(toLatinDigits('Q۳ و ٤'), 'Q3 و 4');
  assert.equal(localizeDigits('Q3', { lang: 'fa' }), 'Q۳');
  assert.equal(localizeDigits('Q3', { lang: 'ar' }), 'Q٣');
  assert.equal(localizeDigits('Q3', { lang: 'ar', latinDigits: true }), 'Q3');
});
