// Property tests (fast-check) of the answer parser and the formatter
// (web/js/i18n/numerals.mjs): every script, separators, bidi marks, percent, and
// round trips with formatNumber. A failing property prints its smallest
// counterexample and the seed to replay it (fc.assert's report).
import test from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseNumber, formatNumber, toLatinDigits } from '../../web/js/i18n/numerals.mjs';

const REASONS = ['empty', 'invalid', 'not-finite', 'ambiguous', 'slash-decimal', 'trailing-minus', 'space-group'];
const ZERO = { latin: 0x30, persian: 0x06f0, arabic: 0x0660 };
const script = fc.constantFrom('latin', 'persian', 'arabic');
const digitIn = (d, s) => String.fromCodePoint(ZERO[s] + d);
// A string of digits written with a (possibly different) script per digit.
// Other characters (separators) are kept.
const writeDigits = (text, scripts) => [...text].map((c, i) => (/[0-9]/.test(c) ? digitIn(Number(c), scripts[i % scripts.length]) : c)).join('');
const lang = fc.constantFrom('fa', 'ar');
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });

// Characters a learner, a keyboard or a copy from the page can produce, and anything at all.
const answerChars = fc.constantFrom(...'0123456789۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩.,٫٬-+−%٪eE /\u200e\u200f\u061c\u2066\u2069 ∞');
const hostile = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: answerChars, maxLength: 30 }));

test('parseNumber never throws and always answers in its contract', () => {
  fc.assert(fc.property(hostile, fc.boolean(), (s, allowPercent) => {
    const r = parseNumber(s, { allowPercent });
    if (r.ok) return Number.isFinite(r.value) && !Object.is(r.value, -0) && Object.keys(r).length === 2;
    return REASONS.includes(r.reason) && Object.keys(r).length === 2;
  }), { numRuns: 3000 });
  for (const x of [null, undefined, {}, [], Symbol.iterator, 1n, () => 1]) {
    assert.equal(parseNumber(x).ok, false);
  }
});

test('integers read the same in any mix of Latin, Persian and Arabic-Indic digits', () => {
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.array(script, { minLength: 1, maxLength: 20 }), (n, scripts) => {
    const r = parseNumber(writeDigits(n.toString(), scripts));
    return r.ok && r.value === Number(n);
  }));
});

test('decimals: ٫ and . are the same separator; a fraction of any script reads as written', () => {
  fc.assert(fc.property(fc.nat(999999), fc.stringMatching(/^[0-9]{1,8}$/), fc.array(script, { minLength: 1, maxLength: 5 }), fc.constantFrom('.', '\u066b'),
    (int, frac, scripts, sep) => {
      const text = writeDigits(String(int), scripts) + sep + writeDigits(frac, scripts);
      const r = parseNumber(text);
      return r.ok && r.value === Number(`${int}.${frac}`);
    }));
});

test('grouping: ٬ between every three digits, or "," with a decimal part, reads as the plain number', () => {
  const group = (s, sep) => s.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  fc.assert(fc.property(fc.nat(), fc.array(script, { minLength: 1, maxLength: 4 }), (n, scripts) => {
    const plain = String(n);
    const a = parseNumber(writeDigits(group(plain, '\u066c'), scripts));
    const b = parseNumber(group(plain, ',') + '.5');
    return a.ok && a.value === n && b.ok && b.value === n + 0.5;
  }));
});

test('a lone comma is never read as a different number than the writer could mean', () => {
  // "a,b": either the decimal reading a.b, or refused as ambiguous (1-3 digits, comma, 3 digits).
  fc.assert(fc.property(fc.stringMatching(/^[0-9]{1,5}$/), fc.stringMatching(/^[0-9]{1,5}$/), (a, b) => {
    const r = parseNumber(`${a},${b}`);
    if (/^[1-9][0-9]{0,2}$/.test(a) && b.length === 3) return !r.ok && r.reason === 'ambiguous';
    return r.ok && r.value === Number(`${a}.${b}`);
  }));
});

test('bidi marks anywhere (as Intl and copy-paste insert them) change nothing', () => {
  const marks = fc.constantFrom('\u200e', '\u200f', '\u061c', '\u2066', '\u2067', '\u2068', '\u2069', '\ufeff');
  fc.assert(fc.property(finite, lang, fc.array(fc.tuple(fc.nat(40), marks), { maxLength: 6 }), (x, l, inserts) => {
    let s = formatNumber(x, { lang: l, maximumSignificantDigits: 17 });
    const before = parseNumber(s);
    for (const [at, m] of inserts) { const i = at % (s.length + 1); s = s.slice(0, i) + m + s.slice(i); }
    return JSON.stringify(parseNumber(s)) === JSON.stringify(before);
  }));
});

test('round trip: every finite double formatted in the page digits (fa, ar) parses back to itself', () => {
  fc.assert(fc.property(finite, lang, (x, l) => {
    const s = formatNumber(x, { lang: l, maximumSignificantDigits: 17 });
    const r = parseNumber(s);
    return r.ok && r.value === (x === 0 ? 0 : x);
  }), { numRuns: 3000 });
});

test('round trip with Latin digits: back to itself, or refused as ambiguous ("1,234"), never another number', () => {
  fc.assert(fc.property(finite, lang, fc.boolean(), (x, l, grouping) => {
    const s = formatNumber(x, { lang: l, latinDigits: true, maximumSignificantDigits: 17, useGrouping: grouping });
    const r = parseNumber(s);
    if (r.ok) return r.value === (x === 0 ? 0 : x);
    return r.reason === 'ambiguous' && /^[^0-9]*[1-9][0-9]{0,2},[0-9]{3}$/.test(s);
  }), { numRuns: 3000 });
});

test('percent: "x%" / "٪x" is x/100 when allowed and refused when not', () => {
  fc.assert(fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), lang, fc.constantFrom('%', '\u066a'), fc.boolean(), (x, l, sign, before) => {
    const num = formatNumber(x, { lang: l, maximumSignificantDigits: 17, useGrouping: false });
    const s = before ? sign + num : num + sign;
    const r = parseNumber(s, { allowPercent: true });
    const plain = parseNumber(num);
    return r.ok && r.value === (plain.value / 100 === 0 ? 0 : plain.value / 100) && parseNumber(s).reason === 'invalid';
  }));
});

test('non-finite spellings and overflows are refused as not-finite, never parsed', () => {
  fc.assert(fc.property(fc.constantFrom('∞', 'Infinity', 'inf', 'NaN', '1e999', '-1e400', formatNumber(NaN, { lang: 'fa' }), formatNumber(NaN, { lang: 'ar' }), formatNumber(-Infinity, { lang: 'ar' })),
    fc.constantFrom('', '+', '-', '\u2212'), (word, sign) => {
      const r = parseNumber(sign + word);
      return !r.ok && (r.reason === 'not-finite' || r.reason === 'invalid');
    }));
});

test('toLatinDigits maps every digit of the three scripts and nothing else', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => {
    const out = toLatinDigits(s);
    const ours = /[\u06f0-\u06f9\u0660-\u0669]/;
    return [...out].length === [...s].length && !ours.test(out) &&
      [...s].every((c, i) => (ours.test(c) ? /[0-9]/.test([...out][i]) : [...out][i] === c));
  }));
});
