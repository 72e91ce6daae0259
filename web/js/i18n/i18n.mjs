// Prose of the page language, with the mini-markup of web/README.md.
//
// Usage:
//   import { loadText, t, tNode, tPlural, tNodePlural, fmt } from './i18n.mjs';
//   await loadText(lang, { latinDigits: false });       // fetches ../text/<lang>.json, preloads KaTeX
//   h2.append(tNode('s2.title'));                        // DocumentFragment (bdi, KaTeX, strong)
//   p.append(tNode('s2.satRow', { score: 2.1213, pct: fmt(0.51, { style: 'percent' }) }));
//   button.setAttribute('aria-label', t('site.exportPng'));   // plain string
//   p.append(tNode('x.rows', { first: tNodePlural('x.keys', 4) }));   // x.keys.few / x.keys.other
//
// Markup inside a string:
//   [name]   placeholder. A number is formatted with fmt(x, {maximumFractionDigits: 2});
//            a string is inserted as text; a DOM Node is inserted as is (tNode only);
//            {value, opts} formats value with fmt(value, opts). Names are [A-Za-z_][\w.]*,
//            so "[1, 1]" stays literal text. Placeholders are filled in text, **bold** and
//            `code`, never inside $…$ (KaTeX wants Latin digits; put numbers outside).
//   `x`      LTR isolate <bdi dir="ltr" class="ltr"> for identifiers and English terms
//   $…$      inline KaTeX, rendered with katex.render into <span dir="ltr" class="math">
//   **x**    <strong>
//   \` \$ \* \[   literal characters
// A missing key renders as ⟦key⟧ (and warns once) so gaps are visible in tests.
//
// Digits: every text rendered here follows the reader's Latin-digits setting, the numbers
// of placeholders (fmt) and the digits typed into the prose alike («۱۲۸ هزار» → «128 هزار»);
// `code` and $math$ keep theirs. setLatinDigits(on) switches the setting for everything
// rendered afterwards; applyDigits(root) converts what is already on the page (no reload),
// watchDigits(root) keeps converting what is added later (content built from old strings).

import { formatNumber, ltrNumber, latinizeText, localizeDigits } from './numerals.mjs';
import { defaultLanguage } from './languages.mjs';
import { texToText } from './tex-speech.mjs';
import { parseMarkup } from './markup.mjs';

let dict = {};
let currentLang = defaultLanguage();
let latin = false;
let katex = null;
const warned = new Set();

const LRI = '\u2066';
const PDI = '\u2069';

/** Load the merged text file of a language. Returns the dictionary. */
export async function loadText(lang, { latinDigits = false, url } = {}) {
  currentLang = lang;
  latin = !!latinDigits;
  const textUrl = url || new URL(`../../text/${lang}.json`, import.meta.url);
  const res = await fetch(textUrl);
  if (!res.ok) throw Object.assign(new Error(`text ${lang}: HTTP ${res.status}`), { code: 'TextLoad' });
  dict = await res.json();
  return dict;
}

// KaTeX loads when the first part that shows formulas mounts (pages/page-common.mjs mountPart),
// not with the prose: the page's first screen has no formula, and evaluating KaTeX was one of
// the longest tasks of the load (about 40 ms). Until it is here, renderMath writes the source.
let katexLoading = null;
/** Load KaTeX once; resolves to it (null when it cannot load: formulas stay as their source). */
export function loadMath() {
  if (!katexLoading) {
    katexLoading = import('../../vendor/katex/katex.mjs').then((m) => { katex = m.default || m; return katex; }).catch(() => null);
  }
  return katexLoading;
}

/** For tests and tools: use an in-memory dictionary. */
export function setText(lang, dictionary, { latinDigits = false, katexModule = null } = {}) {
  currentLang = lang;
  latin = !!latinDigits;
  dict = dictionary || {};
  if (katexModule) katex = katexModule;
}

export function getLang() { return currentLang; }
export function getLatinDigits() { return latin; }
/** Switch the digits of everything rendered from now on (see applyDigits for what is shown). */
export function setLatinDigits(on) { latin = !!on; }
export function has(id) { return Object.prototype.hasOwnProperty.call(dict, id); }
/** Every key of the loaded text, in file order (practice/items.mjs finds the items in it). */
export function textKeys() { return Object.keys(dict); }
/** The raw string of a key, mini-markup and [placeholders] unrendered ('' when missing). */
export function rawText(id) { return has(id) ? String(dict[id]) : ''; }

/** Format a number in the page language (and the Latin-digits setting). */
export function fmt(x, opts = {}) {
  return formatNumber(x, { lang: currentLang, latinDigits: latin, ...opts });
}

function raw(id) {
  if (has(id)) return String(dict[id]);
  if (!warned.has(id)) { warned.add(id); console.warn('i18n: missing text', id); }
  return `⟦${id}⟧`;
}

// ---------------------------------------------------------------- rendering
function paramText(v) {
  if (v == null) return '';
  if (typeof v === 'number') return fmt(v, { maximumFractionDigits: 2 });
  if (typeof v === 'string') return v;
  if (typeof Node !== 'undefined' && v instanceof Node) return v.textContent;
  if (typeof v === 'object' && 'value' in v) {
    return typeof v.value === 'number' ? fmt(v.value, v.opts || {}) : String(v.value);
  }
  return String(v);
}

function nodesToString(nodes, params) {
  let out = '';
  for (const n of nodes) {
    if (n.type === 'text') out += textDigits(n);
    else if (n.type === 'ph') out += params && n.name in params ? paramText(params[n.name]) : `[${n.name}]`;
    else if (n.type === 'code') out += LRI + nodesToString(n.parts.map(keepDigits), params) + PDI;
    else if (n.type === 'math') out += LRI + texToText(n.s) + PDI;
    else if (n.type === 'strong') out += nodesToString(n.parts, params);
  }
  return out;
}

/** Render a markup string to a DocumentFragment. */
export function renderMarkup(str, params = {}) {
  const frag = document.createDocumentFragment();
  appendNodes(frag, parseMarkup(str), params);
  return frag;
}

// Punctuation that must not start a line after an inline formula or isolate ("$W_V$، …").
const GLUE = /^[،؛:.,)\]»!؟?٪%]+/;
// An opening bracket at the end of a text run, and the formula or isolate after it.
const OPEN = /[(\[«]$/;
// An LTR isolate this short (a term, a name: `multi-query attention`) is set on one line: broken
// at its own space or hyphen it read «(-multi» … «query attention)» in RTL text.
const SHORT_ISOLATE = 24;

// "$d_k$ = [dk]" / "$x$ ≈ **[v]**": an equation whose left side is a formula and whose right
// side is one number. Left to the page's bidi, RTL text would show it mirrored ("۶۴ = d_k"),
// so the three parts go into one LTR isolate (mathematics reads left to right).
const REL = /^\s*[=≈<>≤≥]\s*$/;
const isNumberNode = (n) => n && (n.type === 'ph' || (n.type === 'strong' && n.parts.length === 1 && n.parts[0].type === 'ph'));

// How long a formula's or isolate's source is (a long one must stay free to wrap on a phone).
const sourceLength = (n) => (n.type === 'math' ? n.s.length
  : n.parts.reduce((sum, p) => sum + (p.s ?? p.name ?? '').length, 0));

// How many characters an isolate shows (a formula counts as its spoken label: its
// textContent holds the MathML as well).
const shownLength = (el) => [...el.childNodes].reduce((sum, c) => sum
  + ((c.nodeType === 1 && c.getAttribute('aria-label')) || c.textContent).length, 0);

function appendNodes(parent, nodes, params) {
  for (let idx = 0; idx < nodes.length; idx++) {
    const n = nodes[idx];
    const next = nodes[idx + 1];
    if ((n.type === 'math' || n.type === 'code') && next && next.type === 'text' && REL.test(next.s)
      && isNumberNode(nodes[idx + 2])) {
      const b = document.createElement('bdi');
      b.dir = 'ltr';
      b.className = 'ltr eq';
      appendNodes(b, [n], params);
      b.append(` ${next.s.trim()} `);
      appendNodes(b, [nodes[idx + 2]], params);
      if (shownLength(b) <= SHORT_ISOLATE) b.classList.add('ltr-short');
      nodes = [...nodes.slice(0, idx), { type: 'node', node: b }, ...nodes.slice(idx + 3)];
      idx -= 1;
      continue;
    }
    if ((n.type === 'math' || n.type === 'code' || n.type === 'node') && next && next.type === 'text' && GLUE.test(next.s)) {
      // keep the formula and the punctuation after it on one line
      const glue = GLUE.exec(next.s)[0];
      const span = document.createElement('span');
      span.className = 'nowrap';
      appendNodes(span, [n], params);
      span.append(glue);
      parent.append(span);
      nodes = [...nodes.slice(0, idx + 1), { type: 'text', s: next.s.slice(glue.length) }, ...nodes.slice(idx + 2)];
      continue;
    }
    const startsEq = next && (next.type === 'math' || next.type === 'code') && nodes[idx + 2]?.type === 'text'
      && REL.test(nodes[idx + 2].s) && isNumberNode(nodes[idx + 3]);
    if (n.type === 'text' && next && (next.type === 'math' || next.type === 'code') && OPEN.test(n.s)
      && !startsEq && sourceLength(next) <= SHORT_ISOLATE) {
      // "(" stays on the line of the formula it opens: the bracket alone ended a line before
      parent.append(textDigits({ ...n, s: n.s.slice(0, -1) }));
      const span = document.createElement('span');
      span.className = 'nowrap';
      span.append(n.s.slice(-1));
      const after = nodes[idx + 2];
      const close = after && after.type === 'text' ? GLUE.exec(after.s) : null;
      appendNodes(span, [next], params);
      if (close) span.append(close[0]);
      parent.append(span);
      nodes = [...nodes.slice(0, idx + 2), ...(close ? [{ ...after, s: after.s.slice(close[0].length) }] : []), ...nodes.slice(idx + (close ? 3 : 2))];
      idx += 1;
      continue;
    }
    if (n.type === 'text') parent.append(textDigits(n));
    else if (n.type === 'node') parent.append(n.node);
    else if (n.type === 'ph') {
      const v = params ? params[n.name] : undefined;
      if (v === undefined) parent.append(`[${n.name}]`);
      else if (v instanceof Node) parent.append(v.cloneNode(true));
      else {
        const span = document.createElement('span');
        span.className = 'num';
        span.textContent = paramText(v);
        parent.append(span);
      }
    } else if (n.type === 'code') {
      const b = document.createElement('bdi');
      b.dir = 'ltr';
      b.className = 'ltr';
      appendNodes(b, n.parts.map(keepDigits), params);   // float32, fp16: not numbers
      if (shownLength(b) <= SHORT_ISOLATE) b.classList.add('ltr-short');
      parent.append(b);
    } else if (n.type === 'math') {
      parent.append(renderMath(n.s));
    } else if (n.type === 'strong') {
      const s = document.createElement('strong');
      appendNodes(s, n.parts, params);
      parent.append(s);
    }
  }
}

/** A KaTeX formula in an LTR span (inline by default). Falls back to the TeX source. */
export function renderMath(tex, { display = false } = {}) {
  const span = document.createElement(display ? 'div' : 'span');
  span.dir = 'ltr';
  span.className = display ? 'math math-display' : 'math';
  if (katex) {
    try {
      katex.render(tex, span, { displayMode: display, throwOnError: false, output: 'htmlAndMathml' });
      // axe (and some screen readers) take no name from KaTeX's MathML, so a
      // header cell or a quiz option that is only a formula would be nameless.
      span.setAttribute('role', 'math');
      span.setAttribute('aria-label', texToText(tex));
      return span;
    } catch { /* fall through to plain text */ }
  }
  span.textContent = texToText(tex);
  return span;
}

// A formatted number: optional bidi mark and sign, digits of any of the three systems,
// ٫ ٬ . separators, optional percent sign. (Not ",": in "[1, 2]" it separates entries.)
const NUMBER_RE = /[\u061c\u200e]?[-\u2212+]?[0-9\u06f0-\u06f9\u0660-\u0669][0-9\u06f0-\u06f9\u0660-\u0669\u066b\u066c.]*[%\u066a]?\u061c?/g;

/**
 * An LTR isolate for arithmetic or a vector ("[۱, ۲]", "۳ ÷ ۱٫۴۱ = ۲٫۱۲") in RTL prose.
 * Every number inside gets its own isolate: Arabic-Indic digits are "Arabic numbers" to the
 * bidi algorithm and would otherwise pull the commas and operators between them into an RTL
 * run, reversing the order. parts: strings, Nodes or arrays of them.
 */
export function ltrExpr(parts, className = 'arith') {
  const b = document.createElement('bdi');
  b.dir = 'ltr';
  b.className = className;
  const add = (p) => {
    if (p == null) return;
    if (Array.isArray(p)) { p.forEach(add); return; }
    if (typeof p !== 'string') { b.append(p); return; }
    let last = 0;
    for (const m of p.matchAll(NUMBER_RE)) {
      if (m.index > last) b.append(p.slice(last, m.index));
      const span = document.createElement('span');
      span.className = 'iso';
      span.textContent = ltrNumber(m[0]);   // minus on the left in Arabic too
      b.append(span);
      last = m.index + m[0].length;
    }
    if (last < p.length) b.append(p.slice(last));
  };
  add(parts);
  return b;
}

/** Plain string (for attributes, <option>, canvas): isolates become LRI…PDI. */
export function t(id, params) {
  return nodesToString(parseMarkup(raw(id)), params);
}

/** Rich DocumentFragment. */
export function tNode(id, params) {
  return renderMarkup(raw(id), params);
}

// ---------------------------------------------------------------- plurals
// A count and its noun must agree: Arabic has six forms (1 مفتاح واحد, 2 مفتاحان, 3–10 مفاتيح,
// 11–99 مفتاحًا, 100 مفتاح), Persian one. The text holds id.<category> for the categories of
// Intl.PluralRules that its language needs, and id.other always (the build checks that).
const rules = new Map();
function pluralCategory(n) {
  if (!rules.has(currentLang)) rules.set(currentLang, new Intl.PluralRules(currentLang));
  return rules.get(currentLang).select(n);
}

/** The key of id's form for the count n: id.<category>, or id.other when the text has none. */
export function pluralKey(id, n) {
  const k = `${id}.${pluralCategory(n)}`;
  return has(k) ? k : `${id}.other`;
}

/** Plain string of id's form for n; the count is the placeholder [n]. */
export function tPlural(id, n, params = {}) { return t(pluralKey(id, n), { ...params, n }); }

/** Rich fragment of id's form for n (to put into another sentence as a placeholder). */
export function tNodePlural(id, n, params = {}) { return tNode(pluralKey(id, n), { ...params, n }); }

// ---------------------------------------------------------------- digits
// Text of a `code` span keeps its digits (float32, rowOffset: 2); its placeholders do not.
const keepDigits = (n) => (n.type === 'text' ? { ...n, keep: true } : n);
const textDigits = (n) => (n.keep && !latin ? n.s : pageDigits(n.s));

const NATIVE_DIGIT = /[\u06f0-\u06f9\u0660-\u0669]/;
const LATIN_DIGIT = /[0-9]/;
const ISOLATE = /(\u2066[^\u2069]*\u2069)/;   // LRI…PDI: `code` and formulas inside a plain string

/**
 * A string in the digits of the current setting: Persian / Arabic-Indic digits with ٫ ٬ ٪
 * between or after them ↔ 0–9 with . , %. In a plain string (t()), LRI…PDI isolates (code,
 * formulas) keep their Latin digits. Used for digits typed into the prose and hand-built labels.
 */
export function pageDigits(str) {
  const s = String(str);
  if (latin) {
    if (!NATIVE_DIGIT.test(s)) return s;
    return latinizeText(s).replace(/([0-9])\u066a/g, '$1%');
  }
  if (!LATIN_DIGIT.test(s)) return s;
  return s.split(ISOLATE).map((part, i) => (i % 2 ? part : toNative(part))).join('');
}

function toNative(s) {
  if (!LATIN_DIGIT.test(s)) return s;
  const sep = s.replace(/([0-9])\.(?=[0-9])/g, '$1\u066b').replace(/([0-9]),(?=[0-9])/g, '$1\u066c')
    .replace(/([0-9])\u200e?%\u200e?/g, '$1\u066a');
  return localizeDigits(sep, { lang: currentLang, latinDigits: false });
}

// Where digits are never converted: code, formulas, form fields (the learner's own text).
const KEEP = 'code, pre, script, style, textarea, input, .katex, .math, [contenteditable]';
const LETTER = /\p{L}/u;
const ATTRS = ['aria-label', 'aria-valuetext', 'title', 'placeholder', 'alt'];

// May this text node's digits change? Persian and Arabic-Indic digits are never technical,
// so they always may (with Latin digits on). Latin ones may not inside code and formulas, nor
// inside an LTR isolate when the text has letters (an identifier: float32, fp16, 128K), unless
// it is a formatted number (.num, placeholder; .iso, ltrExpr).
function convertible(text, el) {
  if (!el || el.closest(KEEP)) return false;
  if (latin) return true;
  const ltr = el.closest('[dir="ltr"]');
  return !ltr || !LETTER.test(text) || !!el.closest('.num, .iso');
}

function convertElementAttrs(el) {
  if (el.closest(KEEP)) return;
  for (const a of ATTRS) {
    const v = el.getAttribute(a);
    if (v && (NATIVE_DIGIT.test(v) || LATIN_DIGIT.test(v))) {
      const nv = pageDigits(v);
      if (nv !== v) el.setAttribute(a, nv);
    }
  }
}

function convertText(node) {
  const v = node.nodeValue;
  if (!(latin ? NATIVE_DIGIT : LATIN_DIGIT).test(v)) return;
  if (!convertible(v, node.parentElement)) return;
  const nv = pageDigits(v);
  if (nv !== v) node.nodeValue = nv;
}

/** Convert the digits already shown under root (text and a few attributes) to the current setting. */
export function applyDigits(root) {
  if (!root) return;
  if (root.nodeType === 3) { convertText(root); return; }
  if (root.nodeType !== 1 && root.nodeType !== 11) return;
  if (root.nodeType === 1) convertElementAttrs(root);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  while (walker.nextNode()) {
    const n = walker.currentNode;
    if (n.nodeType === 3) convertText(n);
    else convertElementAttrs(n);
  }
}

let observer = null;
/**
 * From now on, convert whatever is added under root (or whose text changes). Pages start it
 * when the reader switches digits: content a section built from strings it formatted before
 * the switch then still shows the new digits. (Before any switch nothing needs it: it is off.)
 */
export function watchDigits(root) {
  if (observer || typeof MutationObserver === 'undefined' || !root) return;
  observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'characterData') convertText(r.target);
      else if (r.type === 'attributes') convertElementAttrs(r.target);
      else for (const n of r.addedNodes) applyDigits(n);
    }
  });
  observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ATTRS });
}
