// Entry point of fa/index.html and ar/index.html.
// Loads the settings and the prose, starts the engine worker, keeps the language
// switch pointing at the same place in the other edition, and mounts the nine
// sections (each in its own try/catch: one failing section leaves the others).
//
// Test hooks (on <html>): data-engine="loading|ready|error", data-lesson="ready"
// once every section has mounted or failed; each <section> gets
// data-state="loading|ready|error". window.__lesson = {engine, ctx(sectionId)}.

import { getSettings, setSettings } from '../settings.mjs';
import { formatBytes, formatPercent, localizeDigits, parseNumber } from '../numerals.mjs';
import { loadText, t, tNode, fmt, has, renderMath, renderMarkup, ltrExpr } from '../i18n.mjs';
import { scoped, currentPlace } from '../state.mjs';
import { createEngineClient } from '../engine-client.mjs';

const SECTIONS = [
  ['s1', 's1-qkv.mjs'], ['s2', 's2-worked-example.mjs'], ['s3', 's3-two-roads.mjs'],
  ['s4', 's4-scaling.mjs'], ['s5', 's5-max-subtraction.mjs'], ['s6', 's6-causal.mjs'],
  ['s7', 's7-quadratic-cost.mjs'], ['s8', 's8-chunked.mjs'], ['s9', 's9-code.mjs'],
];

// Used only when the text file itself cannot load (so no translated text exists).
const FALLBACK = {
  fa: 'متن درس بارگیری نشد. صفحه را دوباره بارگیری کنید.',
  ar: 'تعذّر تحميل نص الدرس. أعد تحميل الصفحة.',
};

const html = document.documentElement;
const lang = html.lang === 'ar' ? 'ar' : 'fa';
const other = lang === 'fa' ? 'ar' : 'fa';

function readSettings() {
  try { return getSettings(); } catch { return { lang, latinDigits: false }; }
}

function errorKey(err) {
  const code = err && err.code;
  const key = `err.engine.${code}`;
  return has(key) ? key : 'err.engine.Unknown';
}

/** A message element for an engine/section error, in the page language. */
function errorNode(err, extraKey) {
  const p = document.createElement('p');
  p.className = 'error-message';
  p.setAttribute('role', 'alert');
  p.append(tNode(extraKey || errorKey(err)));
  if (err && err.message && !extraKey) {
    const detail = document.createElement('bdi');
    detail.dir = 'ltr';
    detail.className = 'error-detail';
    detail.textContent = ` (${err.message})`;
    p.append(detail);
  }
  return p;
}

function updateLangSwitch() {
  const a = document.getElementById('lang-switch');
  if (a) a.href = `../${other}/${a.dataset.page || ''}${currentPlace()}`;
}

function setupHeader(settings) {
  const cb = document.getElementById('latin-digits');
  if (cb) {
    cb.checked = !!settings.latinDigits;
    cb.addEventListener('change', () => {
      try { setSettings({ latinDigits: cb.checked }); } catch { /* store unavailable */ }
      // Re-render everything with the new digits; the URL keeps the learner's place.
      location.reload();
    });
  }
  const a = document.getElementById('lang-switch');
  if (a) {
    updateLangSwitch();
    a.addEventListener('click', () => {
      updateLangSwitch();
      try { setSettings({ lang: other }); } catch { /* ignore */ }
    });
    a.addEventListener('focus', updateLangSwitch);
    a.addEventListener('mouseenter', updateLangSwitch);
  }
  window.addEventListener('statechange', updateLangSwitch);
  window.addEventListener('hashchange', updateLangSwitch);
}

// Keep the hash on the section being read, so a copied link (and the language
// switch) returns to it. replaceState: no scrolling, no history entries.
function setupScrollSpy() {
  if (typeof IntersectionObserver === 'undefined') return;
  const links = new Map([...document.querySelectorAll('.toc a[href^="#"]')].map((a) => [a.getAttribute('href').slice(1), a]));
  const visible = new Map();
  let userScrolled = false;
  window.addEventListener('scroll', () => { userScrolled = true; }, { passive: true, once: true });
  const io = new IntersectionObserver((entries) => {
    for (const e of entries) visible.set(e.target.id, e.isIntersecting ? e.boundingClientRect.top : null);
    if (!userScrolled) return;
    let best = null, bestTop = Infinity;
    for (const [id, top] of visible) if (top !== null && Math.abs(top) < bestTop) { best = id; bestTop = Math.abs(top); }
    if (!best || location.hash === `#${best}`) return;
    history.replaceState(history.state, '', location.pathname + location.search + `#${best}`);
    for (const [id, a] of links) { if (id === best) a.setAttribute('aria-current', 'location'); else a.removeAttribute('aria-current'); }
    updateLangSwitch();
  }, { rootMargin: '0px 0px -60% 0px' });
  for (const [id] of SECTIONS) { const s = document.getElementById(id); if (s) io.observe(s); }
}

function makeCtx(sectionId, settings, engine) {
  const latinDigits = !!settings.latinDigits;
  return {
    lang, dir: 'rtl', latinDigits, section: sectionId,
    engine, t, tNode, fmt, has, renderMath, renderMarkup, ltrExpr,
    state: scoped(sectionId),
    parseNumber,
    /** Latin digits in a label built by hand ("Q3") → page digits. */
    localize: (s) => localizeDigits(s, { lang, latinDigits }),
    /** 0.51 → "۵۱٪" (one decimal by default). */
    pct: (x, opts = {}) => formatPercent(x, { lang, latinDigits, ...opts }),
    /** Bytes with a unit word from site.unit.*: fmtBytes(2 ** 31) → "۲ گیبی‌بایت". */
    fmtBytes: (bytes, opts = {}) => {
      const b = formatBytes(bytes, { lang, latinDigits, ...opts });
      return t(`site.unit.${b.unit}`, { n: b.number });
    },
    errorNode,
    /** Replace the content of `el` with the message for `err` (engine error codes). */
    showError: (el, err) => { el.textContent = ''; el.append(errorNode(err)); },
  };
}

// A table wider than the screen scrolls inside its .table-scroll wrapper; keyboard users
// must be able to reach that scroller, so an overflowing one becomes a focusable, named
// region (re-checked when the width changes: at 1280 px most tables fit and stay out of
// the tab order).
function makeScrollersReachable() {
  for (const el of document.querySelectorAll('.table-scroll, pre.code')) {
    const overflows = el.scrollWidth > el.clientWidth + 1;
    const hasFocusable = el.querySelector('button, a[href], input, select, textarea, [tabindex]');
    if (overflows && !hasFocusable) {
      if (!el.hasAttribute('tabindex')) {
        el.tabIndex = 0;
        el.dataset.scrollFocus = '1';
        // a named region when the table has a caption (an unnamed region is worse than none)
        const cap = el.querySelector('caption');
        if (cap && cap.textContent.trim() && !el.getAttribute('role')) {
          el.setAttribute('role', 'region');
          el.setAttribute('aria-label', cap.textContent.trim());
        }
      }
    } else if (el.dataset.scrollFocus === '1' && !overflows) {
      el.removeAttribute('tabindex');
      delete el.dataset.scrollFocus;
    }
  }
}

async function mountSection(id, file, settings, engine) {
  const root = document.getElementById(id);
  if (!root) return;
  root.dataset.state = 'loading';
  try {
    const mod = await import(`../sections/${file}`);
    for (const el of root.querySelectorAll('.section-loading')) el.remove();
    await mod.mount(root, makeCtx(id, settings, engine));
    root.dataset.state = 'ready';
  } catch (err) {
    console.error(`section ${id} failed`, err);
    for (const el of root.querySelectorAll('.section-loading')) el.remove();
    root.append(errorNode(err, 'err.section'));
    root.dataset.state = 'error';
  }
}

// Did the learner move the page themselves while sections were mounting?
let userMoved = false;
for (const ev of ['wheel', 'touchstart', 'keydown', 'mousedown']) {
  window.addEventListener(ev, () => { userMoved = true; }, { passive: true, once: true });
}

async function main() {
  html.dataset.engine = 'loading';
  const settings = readSettings();
  if (settings.latinDigits) html.classList.add('latin-digits');
  try {
    await loadText(lang, { latinDigits: !!settings.latinDigits });
  } catch (err) {
    console.error(err);
    const status = document.getElementById('engine-status');
    if (status) { status.hidden = false; status.textContent = FALLBACK[lang]; }
    html.dataset.lesson = 'error';
    return;
  }
  setupHeader(settings);

  const engine = createEngineClient();
  const status = document.getElementById('engine-status');
  engine.ready.then(() => {
    html.dataset.engine = 'ready';
  }, (err) => {
    console.error('engine failed to load', err);
    html.dataset.engine = 'error';
    if (status) {
      status.hidden = false;
      status.textContent = '';
      status.append(errorNode(err, 'err.engine.EngineLoad'));
    }
  });
  window.__lesson = { engine, ctx: (id) => makeCtx(id, settings, engine) };

  await Promise.allSettled(SECTIONS.map(([id, file]) => mountSection(id, file, settings, engine)));
  html.dataset.lesson = 'ready';
  // Content above the target grew while sections mounted: return to the learner's place.
  if (location.hash && !userMoved) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) target.scrollIntoView();
  }
  setupScrollSpy();
  makeScrollersReachable();
  let resizeTimer = null;
  window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(makeScrollersReachable, 200); });
  // sections re-render tables after interactions: check again when the DOM settles
  let mutTimer = null;
  new MutationObserver(() => { clearTimeout(mutTimer); mutTimer = setTimeout(makeScrollersReachable, 300); })
    .observe(document.querySelector('main') || document.body, { childList: true, subtree: true });
}

main();
