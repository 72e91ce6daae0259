// Numbers in the page language: formatting with Intl (each language's own digits and
// separators, from its entry in languages.mjs: Persian ۰–۹ and Arabic-Indic ٠–٩ with ٫ and ٬)
// and parsing of what a learner types into an answer box. No DOM, no prose: unit names and
// error messages live in web/text/<lang>/*.json, keyed by the codes below.
//
// parseNumber rules (every rule here has a test in tests/node/numerals.test.mjs):
// - Digits: Latin 0–9, Persian ۰–۹, Arabic-Indic ٠–٩. Mixing systems inside one
//   number IS accepted ("۱2٣" = 123): the value is unambiguous and learners who
//   switch keyboard layouts mid-answer should not be punished for it.
// - Surrounding whitespace and invisible bidi marks (LRM, RLM, ALM, isolates,
//   which Intl itself inserts) are ignored, so formatNumber output parses back.
// - One optional sign first: + - − (U+2212) ‐ (U+2010) – (U+2013).
// - Decimal separator: ٫ (U+066B) or "." – at most one.
// - Group separator: ٬ (U+066C) always; "," is a group separator when the number
//   also has a decimal separator ("1,234.5") or has several commas ("1,234,567").
//   Groups must be well formed: first group 1–3 digits, then exactly 3 digits,
//   and only in the integer part.
// - A single "," and no other separator is a DECIMAL separator ("1,5" = 1.5,
//   "0,125" = 0.125, "12,3456" = 12.3456) EXCEPT when it could equally be a
//   thousands separator: 1–3 digits not starting with 0, a comma, exactly 3
//   digits ("1,234", "12,500"). That case is refused with reason 'ambiguous'
//   rather than guessed: half of our readers would mean 1.234, half 1234, and
//   a silently wrong reading is worse than asking to write "1234" or "1٫234".
// - With {integer: true} (a field that only takes whole numbers) a comma cannot be
//   a decimal separator, so "," and the Arabic comma "،" (U+060C) are group
//   separators like ٬: "128,000" = "١٢٨،٠٠٠" = 128000, "1,5" → 'invalid' (a malformed
//   group). "." and ٫ stay decimal separators ("12.5" parses; the caller refuses
//   the fraction with its own message).
// - "/" is NOT accepted as a decimal separator even though handwritten Persian
//   uses it: "1/2" would be read as a fraction by others. Digits/digits is refused
//   with its own reason 'slash-decimal', so the page can say to write ٫ instead.
// - Three common slips get their own reason instead of 'invalid', so the message can
//   name the fix: a minus after the digits ("5-", as a right-to-left keyboard may
//   leave it) → 'trailing-minus'; digits grouped by spaces ("131 072") → 'space-group'.
// - Exponent: e or E, optional sign, digits ("1e-3", "۲٫۵e۳").
// - Percent: % or ٪ (U+066A) at the start or the end, only with
//   {allowPercent: true}; the value is then divided by 100.
// - Anything else (letters, two decimal separators, a lone sign) → 'invalid';
//   "Infinity", "∞", "NaN" (also the fa/ar words formatNumber writes for it) or an
//   overflow like 1e999 → 'not-finite';
//   nothing but whitespace → 'empty'.

import { LANGUAGES, defaultLanguage, digitZero, language, numberLocale } from './languages.mjs';

export { numberLocale };

// The digit sets parsing accepts: Persian and Arabic-Indic always (a learner may type either
// whatever the page), plus those of any other edition in the registry.
const PERSIAN_ZERO = 0x06f0;
const ARABIC_ZERO = 0x0660;

let zerosKnown = null;
const knownZeros = () => (zerosKnown ??= [...new Set([PERSIAN_ZERO, ARABIC_ZERO,
  ...LANGUAGES.map((l) => digitZero(l.code))])].filter((z) => z !== 0x30));

/** Replace Persian, Arabic-Indic (and any edition's) digits by Latin ones; other characters unchanged. */
export function toLatinDigits(str) {
  let out = '';
  const zeros = knownZeros();
  for (const ch of String(str)) {
    const c = ch.codePointAt(0);
    const z = zeros.find((zero) => c >= zero && c <= zero + 9);
    out += z === undefined ? ch : String(c - z);
  }
  return out;
}

/** A text in the page's digits → Latin digits, with ٫ and ٬ between digits as "." and ",". */
export function latinizeText(str) {
  let out = toLatinDigits(str);
  for (const l of LANGUAGES) {
    if (l.decimal !== '.') out = out.replace(new RegExp(`(\\d)${escapeRe(l.decimal)}(?=\\d)`, 'g'), '$1.');
    if (l.group !== ',') out = out.replace(new RegExp(`(\\d)${escapeRe(l.group)}(?=\\d)`, 'g'), '$1,');
  }
  return out;
}
const escapeRe = (c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Replace Latin digits by the page's digits (for labels built outside Intl, e.g. "Q۳"). */
export function localizeDigits(str, { lang = defaultLanguage(), latinDigits = false } = {}) {
  if (latinDigits) return String(str);
  const zero = digitZero(lang);
  return String(str).replace(/[0-9]/g, (d) => String.fromCodePoint(zero + Number(d)));
}

// ---------------------------------------------------------------- formatting

// Intl.NumberFormat construction is slow; heatmaps format thousands of cells.
const formatterCache = new Map();
function formatter(locale, intlOptions) {
  const key = locale + JSON.stringify(intlOptions);
  let f = formatterCache.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, intlOptions);
    formatterCache.set(key, f);
  }
  return f;
}

// Fixed words for the non-finite values (languages.mjs: notANumber), so the page does not
// depend on the CLDR version of the browser. −∞ takes the language's own minus sign with the
// directional mark Intl puts before it (LRM in Persian, ALM in Arabic), so it stays left of ∞
// in right-to-left text exactly as a negative number does.
const LRM = '\u200e';
const minusSigns = new Map();
function minusSign(lang) {
  if (!minusSigns.has(lang)) {
    const parts = new Intl.NumberFormat(numberLocale(lang)).formatToParts(-1);
    minusSigns.set(lang, parts.slice(0, parts.findIndex((p) => p.type === 'integer')).map((p) => p.value).join(''));
  }
  return minusSigns.get(lang);
}

/**
 * Format x for the page. opts: {lang, latinDigits, ...Intl.NumberFormat options}.
 * Intl's default is at most 3 fraction digits; pass maximumFractionDigits or
 * maximumSignificantDigits for more. Non-numbers are formatted as NaN.
 */
export function formatNumber(x, opts = {}) {
  const { lang = defaultLanguage(), latinDigits = false, ...intlOptions } = opts;
  // Intl formats a BigInt exactly (2^72 keeps its low digits; Number(x) would not)
  if (typeof x === 'bigint') return formatter(numberLocale(lang, latinDigits), intlOptions).format(x);
  const v = x;
  if (typeof v !== 'number' || Number.isNaN(v)) return language(lang).notANumber;
  if (v === Infinity) return '∞';
  if (v === -Infinity) return minusSign(language(lang).code) + '∞';
  return formatter(numberLocale(lang, latinDigits), intlOptions).format(v);
}

/**
 * A formatted number for a left-to-right place (matrix cell, vector, arithmetic): Arabic
 * formatting starts a negative number with ALM (U+061C, a strong right-to-left mark) so
 * that RTL prose shows the minus on the right ("١٢-"); in LTR mathematics the minus must
 * stay on the left, so the ALM becomes an LRM. Other strings are returned unchanged.
 */
export function ltrNumber(s) {
  return String(s).replace(/\u061c/g, LRM);
}

/** Format a fraction as a percentage: 0.51 → "۵۱٪". One fraction digit by default. */
export function formatPercent(fraction, opts = {}) {
  return formatNumber(fraction, { maximumFractionDigits: 1, ...opts, style: 'percent' });
}

const BYTE_UNITS = {
  B: 1,
  KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12,
  KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40,
};

/**
 * Bytes in a unit. Returns {value, unit, number}: the page puts `number` into a
 * per-language text key such as "site.unit.GiB" ("[n] گیبی‌بایت"), because unit
 * names are prose. unit 'auto' (default) picks the largest binary unit ≥ 1.
 */
export function formatBytes(bytes, { unit = 'auto', maximumFractionDigits = 2, ...opts } = {}) {
  let u = unit;
  if (u === 'auto') {
    u = 'B';
    for (const cand of ['KiB', 'MiB', 'GiB', 'TiB']) if (Math.abs(bytes) >= BYTE_UNITS[cand]) u = cand;
  }
  if (!(u in BYTE_UNITS)) throw new Error(`formatBytes: unknown unit ${unit}`);
  const value = bytes / BYTE_UNITS[u];
  return { value, unit: u, number: formatNumber(value, { maximumFractionDigits, ...opts }) };
}

// ---------------------------------------------------------------- parsing

// Bidi controls and marks: LRM, RLM, ALM, LRE..RLO, LRI..PDI, and the BOM.
const INVISIBLE = /[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\ufeff]/g;
const SIGNS = { '+': 1, '-': -1, '\u2212': -1, '\u2010': -1, '\u2013': -1 };
const NOT_FINITE_WORDS = /^(?:[+\-\u2212]?(?:∞|infinity|inf)|nan)$/i;

/**
 * Split a typed list of numbers into tokens for parseNumber (used by every list field: s5's
 * score row and the refresher's vectors). Separators: whitespace, the Arabic comma «،», «؛»,
 * ";" and a Latin comma that is NOT between two digits ("1, 2" or "1 ,2"). A Latin comma
 * between two digits stays inside the token, so "٠,٥" is the one number 0.5 (parseNumber's
 * decimal-comma rule) and "1,2,3" reaches parseNumber whole and is refused there, never
 * silently read as three numbers. Bidi marks that Intl or the page inserts are dropped.
 */
export function splitNumberList(text) {
  return String(text).replace(INVISIBLE, '')
    .split(/[\s\u060c;\u061b]+|,(?![0-9\u06f0-\u06f9\u0660-\u0669])|(?<![0-9\u06f0-\u06f9\u0660-\u0669]),/)
    .filter((s) => s !== '');
}

/**
 * Parse a learner's answer. Returns {ok: true, value} or
 * {ok: false, reason: 'empty' | 'invalid' | 'not-finite' | 'ambiguous' | 'slash-decimal' |
 *   'trailing-minus' | 'space-group'}.
 * Never throws. opts: {allowPercent = false, integer = false} (integer: commas group digits).
 */
export function parseNumber(str, { allowPercent = false, integer = false } = {}) {
  if (typeof str !== 'string' && typeof str !== 'number') return { ok: false, reason: 'invalid' };
  let s = toLatinDigits(String(str)).replace(INVISIBLE, '').trim();
  // whole-number fields: every comma is a group separator (written as ٬ below)
  if (integer) s = s.replace(/[,\u060c]/g, '\u066c');
  if (s === '') return { ok: false, reason: 'empty' };

  let percent = false;
  if (/^[%٪]/.test(s) || /[%٪]$/.test(s)) {
    if (!allowPercent) return { ok: false, reason: 'invalid' };
    percent = true;
    s = s.replace(/^[%٪]\s*|\s*[%٪]$/, '');
  }

  let sign = 1;
  if (s[0] in SIGNS) {
    sign = SIGNS[s[0]];
    s = s.slice(1);
  }
  if (NOT_FINITE_WORDS.test(s) || LANGUAGES.some((l) => l.notANumber === s)) return { ok: false, reason: 'not-finite' };

  // mantissa [exponent]; the mantissa holds only digits and separators.
  const m = /^([0-9.,\u066b\u066c]+)(?:[eE]([+\-\u2212]?[0-9]+))?$/.exec(s);
  if (!m) return { ok: false, reason: slipReason(s) };
  const mantissa = normalizeMantissa(m[1]);
  if (!mantissa.ok) return mantissa;
  const exponent = m[2] ? m[2].replace('\u2212', '-') : '0';

  let value = sign * Number(`${mantissa.text}e${exponent}`);
  if (percent) value /= 100;
  if (!Number.isFinite(value)) return { ok: false, reason: 'not-finite' };
  return { ok: true, value: value === 0 ? 0 : value }; // no -0 in answers
}

// Why an unreadable mantissa failed, when it is one of the common slips named above.
function slipReason(s) {
  if (/^[0-9]+\/[0-9]+$/.test(s)) return 'slash-decimal';
  if (/^[0-9.,\u066b\u066c]*[0-9][+\-\u2212\u2010\u2013]$/.test(s)) return 'trailing-minus';
  if (/^[0-9]{1,3}(?:[ \u00a0\u2009\u202f][0-9]{3})+(?:[.\u066b][0-9]+)?$/.test(s)) return 'space-group';
  return 'invalid';
}

// "1,234.5" → {ok, text: "1234.5"} following the separator rules above.
function normalizeMantissa(raw) {
  const decimals = [...raw].filter((c) => c === '.' || c === '\u066b').length;
  const commas = [...raw].filter((c) => c === ',').length;
  if (decimals > 1) return { ok: false, reason: 'invalid' };

  let intPart;
  let fracPart;
  let groupChars;
  if (decimals === 0 && commas === 1 && !raw.includes('\u066c')) {
    // The single comma is the decimal separator, unless it reads as grouping too.
    if (/^[1-9][0-9]{0,2},[0-9]{3}$/.test(raw)) return { ok: false, reason: 'ambiguous' };
    [intPart, fracPart] = raw.split(',');
    groupChars = null;
  } else {
    [intPart, fracPart = ''] = raw.split(/[.\u066b]/);
    groupChars = /[,\u066c]/;
  }
  if (fracPart !== undefined && /[^0-9]/.test(fracPart)) return { ok: false, reason: 'invalid' };
  if (groupChars && groupChars.test(intPart)) {
    const groups = intPart.split(groupChars);
    const wellFormed =
      /^[0-9]{1,3}$/.test(groups[0]) && groups.slice(1).every((g) => /^[0-9]{3}$/.test(g));
    if (!wellFormed) return { ok: false, reason: 'invalid' };
    intPart = groups.join('');
  }
  if (/[^0-9]/.test(intPart)) return { ok: false, reason: 'invalid' };
  if (intPart === '' && (fracPart ?? '') === '') return { ok: false, reason: 'invalid' };
  return { ok: true, text: `${intPart || '0'}.${fracPart || '0'}` };
}
