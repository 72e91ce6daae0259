// Checks that make the site build fail: prose files of the two editions and the
// generated HTML pages. Pure functions over strings/objects (no DOM), used by
// build-scripts/make-site.mjs and tests/node/text-check.test.mjs.
// Each check returns a list of human-readable problems ([] = fine).

import fs from 'node:fs';
import path from 'node:path';

export const LANGS = ['fa', 'ar'];

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

/** Remove `code`, $math$ and [placeholders] (the parts allowed to hold Latin). */
export function stripIsolates(s) {
  return String(s)
    .replace(/\\[`$*[]/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    .replace(/\$[^$]*\$/g, ' ')
    .replace(/\[[A-Za-z_][A-Za-z0-9_.]*\]/g, ' ');
}

/** Latin words outside isolates that are not in the allow-list. */
export function latinOutsideIsolates(s, allow = LATIN_ALLOW) {
  const words = stripIsolates(s).match(/[A-Za-z][A-Za-z0-9_]*/g) || [];
  return words.filter((w) => !allow.has(w) && !allow.has(w.toLowerCase()));
}

const isProse = (key) => !key.startsWith('_');

/** Keys present in one language and not the other. */
export function checkKeyParity(texts) {
  const errors = [];
  const [a, b] = LANGS;
  for (const [x, y] of [[a, b], [b, a]]) {
    for (const key of Object.keys(texts[x] || {})) {
      if (isProse(key) && !(key in (texts[y] || {}))) errors.push(`key "${key}" exists in ${x} but not in ${y}`);
    }
  }
  return errors;
}

const WRONG_LETTERS = {
  fa: { '\u064A': 'Arabic yeh ي (U+064A)', '\u0643': 'Arabic kaf ك (U+0643)' },
  ar: { '\u06CC': 'Persian yeh ی (U+06CC)', '\u06A9': 'Persian keheh ک (U+06A9)' },
};

/** Persian text must not hold Arabic ي/ك; Arabic text must not hold Persian ی/ک. */
export function checkLetters(lang, dict) {
  const errors = [];
  const wrong = WRONG_LETTERS[lang] || {};
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

/** Unbalanced backticks, $ or ** (they would swallow the rest of the string). */
export function checkMarkup(lang, dict) {
  const errors = [];
  for (const [key, value] of Object.entries(dict)) {
    if (!isProse(key)) continue;
    const s = String(value).replace(/\\[`$*]/g, '');
    const ticks = (s.match(/`/g) || []).length;
    const noCode = s.replace(/`[^`]*`/g, '');
    const dollars = (noCode.match(/\$/g) || []).length;
    const stars = (noCode.replace(/\$[^$]*\$/g, '').match(/\*\*/g) || []).length;
    if (ticks % 2) errors.push(`${lang} "${key}": unbalanced backtick`);
    if (dollars % 2) errors.push(`${lang} "${key}": unbalanced $`);
    if (stars % 2) errors.push(`${lang} "${key}": unbalanced **`);
    if (typeof value !== 'string') errors.push(`${lang} "${key}": value is not a string`);
  }
  return errors;
}

/** All prose checks over {fa: dict, ar: dict}. */
export function checkTexts(texts, allow = LATIN_ALLOW) {
  const errors = [...checkKeyParity(texts)];
  for (const lang of LANGS) {
    const d = texts[lang] || {};
    errors.push(...checkLetters(lang, d), ...checkLatin(lang, d, allow), ...checkMarkup(lang, d));
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

/** Read web/text/<lang>/*.json → {texts: {fa, ar}, errors} (duplicate keys, bad JSON). */
export function loadTextDir(textDir) {
  const texts = {};
  const errors = [];
  const origin = {};
  for (const lang of LANGS) {
    texts[lang] = {};
    origin[lang] = {};
    const dir = path.join(textDir, lang);
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : [];
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
  return { texts, errors };
}
