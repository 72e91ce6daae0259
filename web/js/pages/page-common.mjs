// What the two page entry points (pages/lesson.mjs, pages/practice.mjs) do alike:
// read the settings, load the prose (or show a fallback line when the text file
// cannot load), wire the header (Latin-digits checkbox, language switch), start
// the engine worker with its status banner, build the ctx every section/block
// gets, and mount one part of the page in its own try/catch.
//
// Usage (as in practice.mjs):
//   const errorNode = makeErrorNode('practice.engine.callFailed');   // fallback text key
//   const page = await loadPage({ readyKey: 'practice',
//                                 href: (a) => `../${a.dataset.lang}/practice.html${location.hash}` });
//   if (!page) return;                       // text failed: html[data-practice="error"]
//   const engine = startEngine(errorNode, 'practice.engine.error');
//   const ctx = Object.assign(baseCtx(page.settings, { unitKey: 'practice.unit', errorNode }), { engine, store });
//   await mountPart('try', { load: () => import('../practice/blocks/try-without-code.mjs'),
//                            ctx: () => ctx, errorNode, failKey: 'practice.blockFailed', what: 'practice block' });
//   scrollToHash();
// Hooks set here: <html data-engine="loading|ready|error">, data-<readyKey>="error" when the
// text fails, #engine-status (the banner), data-state on each part's root.
// Importing this module registers the service worker (../sw-register.mjs: offline support).

import { getSettings, setSettings } from '../store/settings.mjs';
import { language } from '../i18n/languages.mjs';
import { formatBytes, formatPercent, localizeDigits, parseNumber } from '../i18n/numerals.mjs';
import { loadText, loadMath, t, tNode, tPlural, tNodePlural, fmt, has, renderMath, renderMarkup, getLatinDigits, setLatinDigits, applyDigits, watchDigits } from '../i18n/i18n.mjs';
import { createEngineClient } from '../engine-link/engine-client.mjs';
import { registerServiceWorker } from './sw-register.mjs';
import { hashId } from './url-hash.mjs';

registerServiceWorker();

export const html = document.documentElement;
export const lang = language(html.lang).code;

function readSettings() {
  try { return getSettings(); } catch { return { lang, latinDigits: false }; }
}

/**
 * The page's errorNode(err, extraKey): a message element in the page language, from
 * extraKey, else err.engine.<err.code>, else fallbackKey; with err.message as an LTR detail
 * unless extraKey is given.
 */
export function makeErrorNode(fallbackKey) {
  return function errorNode(err, extraKey) {
    const p = document.createElement('p');
    p.className = 'error-message';
    p.setAttribute('role', 'alert');
    const code = err && err.code;
    p.append(tNode(extraKey || (has(`err.engine.${code}`) ? `err.engine.${code}` : fallbackKey)));
    if (err && err.message && !extraKey) {
      const detail = document.createElement('bdi');
      detail.dir = 'ltr';
      detail.className = 'error-detail';
      detail.textContent = ` (${err.message})`;
      p.append(detail);
    }
    return p;
  };
}

// Header: the Latin-digits checkbox (saved, and the numbers switch in place: no reload, the
// reader keeps their place) and the language switch, whose href(a) is refreshed before it is
// followed. Returns that refresh function.
function setupHeader(settings, href) {
  const cb = document.getElementById('latin-digits');
  if (cb) {
    cb.checked = !!settings.latinDigits;
    cb.addEventListener('change', () => {
      try { setSettings({ latinDigits: cb.checked }); } catch { /* store unavailable: this visit only */ }
      switchDigits(cb.checked);
    });
  }
  // one link per other edition (the build writes them from languages.mjs), each data-lang
  const links = [...document.querySelectorAll('.lang-switch[data-lang]')];
  const update = () => { for (const a of links) a.href = href(a); };
  update();
  for (const a of links) {
    a.addEventListener('click', () => {
      a.href = href(a);
      try { setSettings({ lang: a.dataset.lang }); } catch { /* ignore */ }
    });
    a.addEventListener('focus', () => { a.href = href(a); });
    a.addEventListener('mouseenter', () => { a.href = href(a); });
  }
  return update;
}

/**
 * Show every number of the page in Latin (on) or the page's own digits: what is rendered from
 * now on (i18n's fmt, t, tNode and ctx.localize / pct / fmtBytes read the setting live), what
 * is already shown (applyDigits), what sections add later from strings formatted before the
 * switch (watchDigits), and `digits-changed` on window ({detail: {latinDigits}}) for what
 * draws numbers outside the DOM text (heatmap canvases redraw on it).
 */
export function switchDigits(on) {
  setLatinDigits(on);
  html.classList.toggle('latin-digits', !!on);
  applyDigits(document.body);
  watchDigits(document.body);
  window.dispatchEvent(new CustomEvent('digits-changed', { detail: { latinDigits: !!on } }));
}

/**
 * Settings, prose and header. Returns {settings, updateLangSwitch}, or null when the text
 * file cannot load (then the language's `textLoadFailed` line, languages.mjs, is shown in
 * #engine-status and
 * html.dataset[readyKey] = 'error').
 */
export async function loadPage({ readyKey, href }) {
  html.dataset.engine = 'loading';
  earlyEngine();   // the worker fetches and compiles the engine while the prose loads
  const settings = readSettings();
  if (settings.latinDigits) html.classList.add('latin-digits');
  try {
    await loadText(lang, { latinDigits: !!settings.latinDigits });
    // the header, contents and headings come from the template in the page's digits
    if (settings.latinDigits) applyDigits(document.body);
  } catch (err) {
    console.error(err);
    const status = document.getElementById('engine-status');
    if (status) { status.hidden = false; status.textContent = language(lang).textLoadFailed; }
    html.dataset[readyKey] = 'error';
    return null;
  }
  return { settings, updateLangSwitch: setupHeader(settings, href) };
}

// The engine client, created as soon as the page starts (by loadPage), so the worker loads
// the wasm in parallel with the prose; startEngine() adopts it once the text is in.
let early = null;
function earlyEngine() {
  if (!early) {
    try { early = createEngineClient(); } catch { return null; }   // startEngine reports it
    early.ready.catch(() => {});   // handled by startEngine (or unused when the text fails)
  }
  return early;
}

/** Start the engine worker; if it fails to load, #engine-status shows errorNode(err, errorKey). */
export function startEngine(errorNode, errorKey) {
  const engine = earlyEngine() || createEngineClient();
  const status = document.getElementById('engine-status');
  engine.ready.then(() => {
    html.dataset.engine = 'ready';
  }, (err) => {
    console.error('engine failed to load', err);
    html.dataset.engine = 'error';
    if (status) {
      status.hidden = false;
      status.textContent = '';
      status.append(errorNode(err, errorKey));
    }
  });
  // A crashed or stuck worker was replaced (engine-client.mjs): the section whose call failed
  // shows err.engine.EngineCrashed; the banner says it for the whole page, as a status.
  engine.onStatus((kind) => {
    if (kind !== 'crash' || !status) return;
    status.hidden = false;
    status.textContent = '';
    const p = document.createElement('p');
    p.className = 'engine-restarted';
    p.dataset.testid = 'engine-restarted';
    p.append(tNode('site.engineRestarted'));
    status.append(p);
  });
  return engine;
}

/** The ctx members both pages give; fmtBytes names its unit with `${unitKey}.<unit>`. */
export function baseCtx(settings, { unitKey, errorNode }) {
  // latinDigits is read live (the checkbox switches it without a reload): keep the getter
  // when extending this object (Object.assign onto it, not {...spread}).
  return {
    lang, dir: language(lang).dir,
    get latinDigits() { return getLatinDigits(); },
    t, tNode, tPlural, tNodePlural, fmt, has, renderMath, renderMarkup, parseNumber,
    /** Latin digits in a label built by hand ("Q3") → page digits. */
    localize: (s) => localizeDigits(s, { lang, latinDigits: getLatinDigits() }),
    /** 0.51 → "۵۱٪" (one decimal by default). */
    pct: (x, opts = {}) => formatPercent(x, { lang, latinDigits: getLatinDigits(), ...opts }),
    /** Bytes with a unit word: fmtBytes(2 ** 31) → "۲ گیبی‌بایت". */
    fmtBytes: (bytes, opts = {}) => {
      const b = formatBytes(bytes, { lang, latinDigits: getLatinDigits(), ...opts });
      return t(`${unitKey}.${b.unit}`, { n: b.number });
    },
    errorNode,
    /** Replace the content of `el` with the message for `err` (engine error codes). */
    showError: (el, err) => { el.textContent = ''; el.append(errorNode(err)); },
  };
}

// A page being left (reload, link, closing) cancels its module fetches: a part whose import
// fails then has not failed for the reader, who is already elsewhere; nothing is logged or shown.
let leaving = false;
if (typeof window !== 'undefined') {
  window.addEventListener('beforeunload', () => { leaving = true; });
  window.addEventListener('pagehide', () => { leaving = true; });
  window.addEventListener('pageshow', () => { leaving = false; });   // back from the bfcache
}

/**
 * Mount one part of the page into #id: load() its module and KaTeX (i18n loadMath: parts write
 * formulas), drop the loading line, call mount(root, ctx()). data-state goes loading → ready,
 * or error with errorNode(err, failKey) inside that part only.
 */
export async function mountPart(id, { load, ctx, errorNode, failKey, what }) {
  const root = document.getElementById(id);
  if (!root) return;
  root.dataset.state = 'loading';
  try {
    const [mod] = await Promise.all([load(), loadMath()]);
    for (const el of root.querySelectorAll('.section-loading')) el.remove();
    await mod.mount(root, ctx());
    root.dataset.state = 'ready';
  } catch (err) {
    if (leaving) return;
    console.error(`${what} ${id} failed`, err);
    for (const el of root.querySelectorAll('.section-loading')) el.remove();
    root.append(errorNode(err, failKey));
    root.dataset.state = 'error';
  }
}

/** Scroll to the element the URL's #hash names, if any. */
export function scrollToHash() {
  if (!location.hash) return;
  const target = document.getElementById(hashId());
  if (target) target.scrollIntoView();
}
