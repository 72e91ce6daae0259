// Small helpers shared by the five practice blocks (elements come from ../../dom.mjs): prose
// with the page's digits, live regions, radio choice groups, numeric answer
// fields and grading feedback. No engine calls and no storage here.
//
// ctx (built by pages/practice.mjs): {lang, latinDigits, engine, store, t, tNode,
// fmt, has, pct, fmtBytes, localize, errorNode, ...}.

import { ltrExpr } from '../../i18n/i18n.mjs';
import { h } from '../../dom.mjs';
import { lessonTarget } from '../lesson-links.mjs';
import { SECTIONS } from '../../lesson/lesson-sections.mjs';
import { buildWhenNear } from '../../widgets/lazy-item.mjs';

let uid = 0;
export const nextId = (p = 'p') => `${p}-${++uid}`;

// Digits typed into the prose follow the Latin-digits setting in i18n itself (tNode, t):
// tx and ts remain the blocks' names for them.
/** tNode of the page (digits per the reader's setting). */
export const tx = (ctx, key, params) => ctx.tNode(key, params);

/** t() (plain string) of the page. */
export const ts = (ctx, key, params) => ctx.t(key, params);

/**
 * A text key's prose as a node to quote inside another string («[choice]»). Passed as a
 * string it would land in a non-wrapping number span (i18n.mjs); a whole sentence there
 * runs off a phone's screen. As a node it wraps like the text around it, and the « »
 * written next to it stay on the line of its first and last word.
 */
export function quoted(ctx, key, params) {
  return h('span', { class: 'quoted' }, tx(ctx, key, params));
}

export function p(ctx, key, params, cls) {
  return h('p', { class: cls }, tx(ctx, key, params));
}

/**
 * "Back to the lesson, section «…»": a link to the lesson section that teaches a practice
 * item (kind: cards | quiz | ex | myth; the table is ../lesson-links.mjs). null when the
 * item has no section, or its section is not on the lesson page (yet: the practice of a
 * chapter can land before the chapter, issue 24); a dead link with an untitled section helps nobody.
 */
const ON_LESSON_PAGE = new Set(SECTIONS.map((s) => s.id));
export function lessonLink(ctx, kind, id) {
  const target = lessonTarget(kind, id);
  if (!target || !ON_LESSON_PAGE.has(target.section)) return null;
  return h('p', { class: 'lesson-link' },
    h('a', { href: target.href, testid: 'lesson-link', dataset: { section: target.section } },
      tx(ctx, 'practice.lessonLink', { title: quoted(ctx, `${target.section}.title`) })));
}

/**
 * A block's body: its intro paragraph, then a <div class=listClass> of make(ctx, item) for
 * each item. The first item is built with the block; the others as the reader nears them
 * (widgets/lazy-item.mjs, buildWhenNear: most of a block is below the first screen).
 */
export function introAndList(root, ctx, { introKey, listClass, items, make }) {
  root.append(p(ctx, introKey, null, 'block-intro'));
  const failed = (err) => ctx.errorNode(err, 'practice.blockFailed');   // as a block that fails
  root.append(h('div', { class: listClass }, items.map((item, i) => (i === 0 ? make(ctx, item) : buildWhenNear(() => make(ctx, item), failed)))));
}

/** A polite (or assertive) live region. */
export function liveRegion(testid, { assertive = false, cls = 'feedback' } = {}) {
  const el = h('div', { class: cls, testid, role: assertive ? 'alert' : 'status', 'aria-live': assertive ? 'assertive' : 'polite' });
  return el;
}

/** Replace a region's content with a message; kind = 'ok' | 'bad' | 'info' | 'warn'. */
export function say(region, ctx, key, params, kind = 'info') {
  region.textContent = '';
  region.dataset.kind = kind;
  if (key) region.append(tx(ctx, key, params));
}

/** Append one more paragraph to a region. */
export function sayMore(region, ctx, key, params) {
  region.append(' ', tx(ctx, key, params));
}

/** A number in the page's digits with up to `digits` fraction digits. */
export function num(ctx, x, digits = 2) {
  return ctx.fmt(x, { maximumFractionDigits: digits });
}

/**
 * A short vector like (۱, ۲, −۳) in the page's digits, written left to right like every
 * row and matrix of the lesson (element 0 on the left; each number isolated so that
 * Arabic-Indic digits keep their order).
 */
export function vecNode(ctx, values, digits = 2) {
  return ltrExpr(`(${values.map((v) => num(ctx, v, digits)).join(', ')})`, 'ltr vec');
}

/** Deterministic shuffle (seeded, so a reload keeps the order). */
export function seededShuffle(arr, seedText) {
  let s = 0x811c9dc5;
  for (const ch of String(seedText)) s = Math.imul(s ^ ch.codePointAt(0), 0x01000193) >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 2 ** 32;
  };
  const a = [...arr];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * A fieldset of radio buttons. options: [{value, key | node}]. Returns
 * {el, get value(), set disabled, focusFirst(), inputs}. testid goes on each input
 * as `${testid}` with data-value.
 */
export function choiceGroup(ctx, { legendKey, options, testid, name = nextId('ch') }) {
  const fs = h('fieldset', { class: 'choices' });
  if (legendKey) fs.append(h('legend', {}, tx(ctx, legendKey)));
  const inputs = [];
  for (const o of options) {
    const id = nextId('opt');
    const input = h('input', { type: 'radio', name, id, value: o.value, testid, dataset: { value: o.value } });
    const label = h('label', { for: id }, o.node || tx(ctx, o.key, o.params));
    // An option that is only a formula ("$1/n$"): KaTeX hides its glyphs from assistive
    // technology and its MathML gives the label no text, so name the radio in plain text.
    if (o.key && !o.node) {
      const probe = label.cloneNode(true);
      probe.querySelectorAll('.katex').forEach((k) => k.remove());
      if (!probe.textContent.trim()) input.setAttribute('aria-label', ts(ctx, o.key, o.params));
    }
    inputs.push(input);
    fs.append(h('div', { class: 'choice' }, input, label));
  }
  return {
    el: fs,
    inputs,
    get value() { const c = inputs.find((i) => i.checked); return c ? c.value : null; },
    set value(v) { for (const i of inputs) i.checked = i.value === v; },
    set disabled(d) { fs.disabled = !!d; },
    focusFirst() { (inputs.find((i) => i.checked) || inputs[0])?.focus(); },
    markResult(correctValue) {
      for (const i of inputs) {
        const row = i.parentElement;
        row.classList.toggle('is-correct', i.value === correctValue);
        row.classList.toggle('is-wrong', i.checked && i.value !== correctValue);
      }
    },
  };
}

/** A labelled text input for numeric answers (any digits, ٫ , . separators). */
export function answerField(ctx, { labelKey, testid, onEnter }) {
  const id = nextId('ans');
  const input = h('input', {
    type: 'text', id, inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false',
    class: 'answer-input', dir: 'ltr', testid,
  });
  if (onEnter) input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); onEnter(); } });
  const el = h('div', { class: 'answer-field' }, h('label', { for: id }, tx(ctx, labelKey)), input);
  return { el, input };
}

/**
 * Feedback for a grading result (grading.mjs) in `region`. Returns the status.
 * Unparseable input: the parse reason, never "wrong".
 */
export function showGrade(ctx, region, res, { digits = 3, percent = false } = {}) {
  region.textContent = '';
  const fmtV = (x) => (percent ? ctx.pct(x, { maximumFractionDigits: 1 }) : num(ctx, x, digits));
  if (res.status === 'unparseable') {
    region.dataset.kind = 'warn';
    region.append(tx(ctx, `practice.parse.${res.reason}`), ' ', tx(ctx, 'practice.grade.unparseable'));
    return res.status;
  }
  if (res.status === 'correct') {
    region.dataset.kind = 'ok';
    region.append(tx(ctx, 'practice.grade.correct'));
    if (res.tolerance >= 1e-4) {
      region.append(' ', tx(ctx, 'practice.grade.tolerance', {
        tol: ctx.fmt(res.tolerance, { maximumSignificantDigits: 2 }), expected: fmtV(res.expected),
      }));
    }
    return res.status;
  }
  region.dataset.kind = 'bad';
  region.append(tx(ctx, 'practice.grade.wrong'));
  if (res.note === 'percent-missing') region.append(' ', tx(ctx, 'practice.grade.percent-missing'));
  return res.status;
}

/** "a ← b" for a value that changed (RTL reading order: old on the right). */
export function change(ctx, a, b, digits = 3) {
  return h('span', { class: 'change' }, h('bdi', {}, num(ctx, a, digits)), ' ← ', h('bdi', {}, num(ctx, b, digits)));
}

/** Button helper. */
export function button(ctx, key, { testid, primary = false, onClick, params, cls = '' } = {}) {
  return h('button', { type: 'button', class: `btn${primary ? ' btn-primary' : ''}${cls ? ` ${cls}` : ''}`, testid, on: onClick ? { click: onClick } : null },
    tx(ctx, key, params));
}

/** A table from header keys and rows of cell contents (strings or Nodes). */
export function table(ctx, { captionKey, captionParams, headKeys, rows, testid, cls = 'data-table' }) {
  const t = h('table', { class: cls, testid });
  if (captionKey) t.append(h('caption', {}, tx(ctx, captionKey, captionParams)));
  const thead = h('thead', {}, h('tr', {}, headKeys.map((k) => h('th', { scope: 'col' }, tx(ctx, k)))));
  const tbody = h('tbody');
  for (const r of rows) {
    tbody.append(h('tr', {}, r.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', {}, c)))));
  }
  t.append(thead, tbody);
  // Focusable so keyboard users can scroll a wide table on a narrow screen.
  const label = captionKey ? ts(ctx, captionKey, captionParams) : ts(ctx, 'practice.tableLabel');
  return h('div', { class: 'table-scroll', tabindex: '0', role: 'group', 'aria-label': label }, t);
}

/** Run an engine call; on failure show the engine error in `region` and return null. */
export async function safely(ctx, region, fn) {
  try {
    return await fn();
  } catch (err) {
    console.error(err);
    if (region) {
      region.textContent = '';
      region.dataset.kind = 'bad';
      region.append(ctx.errorNode(err));
    }
    return null;
  }
}

/** Float32 matrix helper. */
export const mat = (rows, cols, values) => ({ rows, cols, data: Float32Array.from(values) });
export const zeros = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols) });

