// Checks that make the site build fail: prose files of the two editions and the
// generated HTML pages. Pure functions over strings/objects (no DOM), used by
// build-scripts/make-site.mjs and tests/node/text-check.test.mjs.
// Each check returns a list of human-readable problems ([] = fine).

import fs from 'node:fs';
import path from 'node:path';

import { language, languageCodes } from '../web/js/i18n/languages.mjs';
import { parseMarkup, markupProblems, hasNode, markupPlain } from '../web/js/i18n/markup.mjs';
import { SECTIONS } from '../web/js/lesson/lesson-sections.mjs';

// Latin words allowed OUTSIDE `isolates` / $math$ in prose: technical names
// that read as one token. Anything longer than a word belongs in backticks.
export const LATIN_ALLOW = new Set([
  'Q', 'K', 'V', 'QK', 'O', 'W', 'Wq', 'Wk', 'Wv', 'x', 'n', 'd', 'L', 'S', 'T', 'i', 'j', 'k', 'v', 'q',
  'd_k', 'd_v', 'dk', 'softmax', 'logit', 'logits',
  'PyTorch', 'NumPy', 'JavaScript', 'WebAssembly', 'Wasm', 'wasm', 'SIMD', 'xsimd', 'Embind', 'Emscripten',
  'C', 'CPU', 'GPU', 'RAM', 'HBM', 'SRAM', 'API', 'URL', 'CSV', 'PNG', 'SVG', 'JSON', 'HTML', 'KaTeX',
  'FlashAttention', 'Transformer', 'transformer',
  'float32', 'float16', 'fp32', 'fp16', 'bf16', 'bfloat16', 'int8',
  'B', 'KB', 'MB', 'GB', 'TB', 'KiB', 'MiB', 'GiB', 'TiB', 'ms', 'nat', 'nats',
  'seed', 'FSRS', 'e', 'exp', 'max', 'ln', 'log',
]);

/** The prose's plain text, each `code`, $math$ and [placeholder] (the parts allowed to hold Latin) a space. */
export function stripIsolates(s) {
  const text = (nodes) => nodes.map((n) => (n.type === 'text' ? n.s : n.type === 'strong' ? text(n.parts) : ' ')).join('');
  return text(parseMarkup(s));
}

/** Latin words outside isolates that are not in the allow-list. */
export function latinOutsideIsolates(s, allow = LATIN_ALLOW) {
  const words = stripIsolates(s).match(/[A-Za-z][A-Za-z0-9_]*/g) || [];
  return words.filter((w) => !allow.has(w) && !allow.has(w.toLowerCase()));
}

const isProse = (key) => !key.startsWith('_');

// Plural forms (web/js/i18n/i18n.mjs tPlural): a language holds only the Intl.PluralRules
// categories it needs and falls back to <id>.other, so x.one may be missing elsewhere
// as long as x.other is there.
const PLURAL_FORM = /^(.*)\.(zero|one|two|few|many)$/;
const hasFallback = (key, dict) => {
  const m = PLURAL_FORM.exec(key);
  return !!m && `${m[1]}.other` in dict;
};

/** Keys present in one language and missing in another (every language against every other). */
export function checkKeyParity(texts) {
  const errors = [];
  const langs = Object.keys(texts);
  for (const x of langs) for (const y of langs) {
    if (x === y) continue;
    const dy = texts[y] || {};
    for (const key of Object.keys(texts[x] || {})) {
      if (isProse(key) && !(key in dy) && !hasFallback(key, dy)) errors.push(`key "${key}" exists in ${x} but not in ${y}`);
    }
  }
  return errors;
}


/** Persian text must not hold Arabic ي/ك; Arabic text must not hold Persian ی/ک. */
export function checkLetters(lang, dict) {
  const errors = [];
  const wrong = language(lang).text.wrongLetters || {};
  for (const [key, value] of Object.entries(dict)) {
    if (!isProse(key)) continue;
    for (const [ch, name] of Object.entries(wrong)) {
      const at = String(value).indexOf(ch);
      if (at >= 0) errors.push(`${lang} "${key}": contains ${name} near «${String(value).slice(Math.max(0, at - 12), at + 12)}»`);
    }
  }
  return errors;
}

/** Latin words outside `…` / $…$ isolates that are not allowed technical terms. */
export function checkLatin(lang, dict, allow = LATIN_ALLOW) {
  const errors = [];
  for (const [key, value] of Object.entries(dict)) {
    if (!isProse(key)) continue;
    const bad = latinOutsideIsolates(value, allow);
    if (bad.length) errors.push(`${lang} "${key}": Latin words outside isolates: ${[...new Set(bad)].join(', ')}`);
  }
  return errors;
}

/** Unbalanced backticks, $ or ** (they would swallow the rest of the string), read by the page's parser. */
export function checkMarkup(lang, dict) {
  const errors = [];
  for (const [key, value] of Object.entries(dict)) {
    if (!isProse(key)) continue;
    if (typeof value !== 'string') errors.push(`${lang} "${key}": value is not a string`);
    for (const problem of markupProblems(value)) errors.push(`${lang} "${key}": ${problem}`);
    // Section titles are also printed as plain text (the static contents list, the lesson map,
    // the sticky bar), where $…$ would show as raw TeX: say it in words there.
    if (/^[a-z0-9]+\.title$/.test(key) && hasNode(parseMarkup(value), 'math')) errors.push(`${lang} "${key}": a section title holds $…$ math, which plain-text copies of it show raw`);
  }
  return errors;
}

/**
 * The "in short" note that ends a lesson section (pages/lesson.mjs renders `<id>.takeaway` under
 * the title site.takeaway): every section up to the last chapter has one that says something
 * (40 characters or more, no placeholder, which the page would show raw); the way out after the
 * last chapter (the summary, the sources) has none.
 */
export function checkTakeaways(lang, dict, sections = SECTIONS) {
  const errors = [];
  const lastChapter = sections.findLastIndex((s) => !s.unnumbered);
  if (!String(dict['site.takeaway'] || '').trim()) errors.push(`${lang}: "site.takeaway" (the note's title) is missing`);
  sections.forEach((s, i) => {
    const key = `${s.id}.takeaway`;
    if (i > lastChapter) {
      if (key in dict) errors.push(`${lang} "${key}": the ${s.id} section comes after the last chapter and has no takeaway`);
      return;
    }
    if (typeof dict[key] !== 'string') { errors.push(`${lang}: section ${s.id} has no "${key}"`); return; }
    const nodes = parseMarkup(dict[key]);
    if (markupPlain(nodes).trim().length < 40) errors.push(`${lang} "${key}": too short to say anything`);
    if (hasNode(nodes, 'ph')) errors.push(`${lang} "${key}": a placeholder, which the note has no value for`);
  });
  return errors;
}

/** All prose checks over {<lang>: dict, …} (every language of languages.mjs). */
export function checkTexts(texts, allow = LATIN_ALLOW) {
  const errors = [...checkKeyParity(texts)];
  for (const lang of Object.keys(texts)) {
    const d = texts[lang] || {};
    errors.push(...checkLetters(lang, d), ...checkLatin(lang, d, allow), ...checkMarkup(lang, d), ...checkTakeaways(lang, d));
  }
  return errors;
}

/** No inline script, no <style> block, no style="" or on*="" attributes (CSP). */
export function checkPageHtml(html, name = 'page') {
  const errors = [];
  const src = String(html).replace(/<!--[\s\S]*?-->/g, '');
  const scriptRe = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
  let m;
  while ((m = scriptRe.exec(src))) {
    if (!/\bsrc\s*=/.test(m[1])) errors.push(`${name}: inline <script> without src`);
    else if (m[2].trim()) errors.push(`${name}: <script src> with inline content`);
  }
  if (/<style\b/i.test(src)) errors.push(`${name}: <style> element`);
  const tagRe = /<[a-zA-Z][^>]*>/g;
  while ((m = tagRe.exec(src))) {
    if (/\sstyle\s*=/i.test(m[0])) errors.push(`${name}: style attribute in ${m[0].slice(0, 60)}`);
    const on = /\s(on[a-z]+)\s*=/i.exec(m[0]);
    if (on) errors.push(`${name}: inline event handler ${on[1]} in ${m[0].slice(0, 60)}`);
    if (/\s(?:href|src)\s*=\s*["']?\s*javascript:/i.test(m[0])) errors.push(`${name}: javascript: URL`);
  }
  return errors;
}

// ---------------------------------------------------------------- terminology
// web/text/<lang>/terms.json holds one entry per concept: the term to use and the
// variants that must not appear anywhere in that language's prose (a lesson and its
// practice pages speak with one voice). It is a build input only: loadTextDir keeps it
// out of the merged page text.
export const TERMS_FILE = 'terms.json';

// Arabic-script letters (Arabic, Persian, presentation forms) and the ZWNJ, which
// joins a Persian word to its suffix: a variant must not touch one on either side, so
// «نما» does not match inside «نمایی» or «نمایش» and «نما‌ها» is a different word.
const LETTER = '\u0620-\u064A\u066E-\u066F\u0671-\u06D3\u06D5\u06EE-\u06EF\u06FA-\u06FC\u06FF\u0750-\u077F\uFB50-\uFDFF\uFE70-\uFEFC\u200C';
// vowel marks (tashkil, superscript alef): part of the word they sit on, so they are
// skipped at the right edge (a case ending) and count as "inside a word" on the left
const MARK = '\u064B-\u065F\u0670';
const HAS_SCRIPT = new RegExp(`[${LETTER}]`);
// What a language writes joined to a word is still that word (languages.mjs, text.termProclitics
// and text.termEndings): Arabic's و، ف، ب، ل، ك and the article ال («بالجيبيبايت» is still the
// variant «جيبيبايت») and its accusative ending «ًا» («جيبيبايتًا» is the same word).
const escRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A RegExp that finds `variant` as a whole word (or, for a variant with no Arabic-script letter, as a literal). */
// exact: no proclitics or endings (for a variant that differs from the term only by one,
// e.g. «كم ميغابايت» against «كم ميغابايتًا»).
export function variantRegExp(lang, variant, { exact = false } = {}) {
  const body = escRe(variant);
  if (!HAS_SCRIPT.test(variant)) return new RegExp(body, 'g');
  const pre = exact ? '' : language(lang).text.termProclitics || '';
  const post = exact ? '' : language(lang).text.termEndings || '';
  return new RegExp(`(?<![${LETTER}${MARK}])${pre}${body}${post}(?![${MARK}]*[${LETTER}])`, 'gu');
}

/** Problems in a terms file's shape (so a typo in it cannot silently disable the check). */
export function checkTermsShape(lang, terms) {
  const errors = [];
  if (!terms || !Array.isArray(terms.terms)) return [`${lang}/${TERMS_FILE}: needs a "terms" array`];
  terms.terms.forEach((t, i) => {
    const where = `${lang}/${TERMS_FILE} entry ${i + 1}${t && t.use ? ` («${t.use}»)` : ''}`;
    if (!t || typeof t.use !== 'string' || !t.use) errors.push(`${where}: "use" must be a non-empty string`);
    if (!t || !Array.isArray(t.avoid) || !t.avoid.length || t.avoid.some((v) => typeof v !== 'string' || !v)) {
      errors.push(`${where}: "avoid" must be a non-empty list of strings`);
    }
    if (t && t.except && !Array.isArray(t.except)) errors.push(`${where}: "except" must be a list of keys`);
  });
  return errors;
}

/**
 * Forbidden variants in one language's prose: each error names the file, the key, the
 * variant found (with a few words around it) and the term to use instead.
 * terms: {terms: [{use, avoid: [..], note?, except?: [keys], exact?: bool}]}; origin: key → file name.
 */
export function checkTerms(lang, dict, terms, origin = {}) {
  const errors = checkTermsShape(lang, terms);
  if (errors.length) return errors;
  const rules = terms.terms.flatMap((t) => t.avoid.map((v) => ({ t, v, re: variantRegExp(lang, v, { exact: !!t.exact }) })));
  for (const [key, value] of Object.entries(dict)) {
    if (!isProse(key)) continue;
    const s = String(value);
    const seen = []; // spans already reported («المخرجات» is also «مخرجات» after the article)
    for (const { t, v, re } of rules) {
      if (t.except && t.except.includes(key)) continue;
      re.lastIndex = 0;
      for (let m; (m = re.exec(s));) {
        const span = [m.index, m.index + m[0].length];
        if (seen.some(([a, b]) => span[0] < b && a < span[1])) continue;
        seen.push(span);
        const near = s.slice(Math.max(0, span[0] - 15), span[1] + 15);
        const file = origin[key] ? `${lang}/${origin[key]}` : lang;
        errors.push(`${file} "${key}": «${v}» is a forbidden variant; use «${t.use}»${t.note ? ` (${t.note})` : ''}: …${near}…`);
      }
    }
  }
  return errors;
}

/** Read <textDir>/<lang>/*.json for every language → {texts: {<lang>: dict}, origin: {<lang>: {key: file}}, terms: {<lang>: terms}, errors}. */
export function loadTextDir(textDir, langs = languageCodes()) {
  const texts = {};
  const errors = [];
  const origin = {};
  const terms = {};
  for (const lang of langs) {
    texts[lang] = {};
    origin[lang] = {};
    const dir = path.join(textDir, lang);
    const termsPath = path.join(dir, TERMS_FILE);
    if (fs.existsSync(termsPath)) {
      try { terms[lang] = JSON.parse(fs.readFileSync(termsPath, 'utf8')); } catch (e) { errors.push(`${lang}/${TERMS_FILE}: invalid JSON: ${e.message}`); }
    }
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json') && f !== TERMS_FILE).sort() : [];
    for (const f of files) {
      let obj;
      try {
        obj = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
      } catch (e) {
        errors.push(`${lang}/${f}: invalid JSON: ${e.message}`);
        continue;
      }
      if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
        errors.push(`${lang}/${f}: not a flat object`);
        continue;
      }
      for (const [k, v] of Object.entries(obj)) {
        if (k.startsWith('_')) continue;
        if (k in texts[lang]) errors.push(`${lang}: key "${k}" defined in both ${origin[lang][k]} and ${f}`);
        texts[lang][k] = v;
        origin[lang][k] = f;
      }
    }
  }
  return { texts, origin, terms, errors };
}
