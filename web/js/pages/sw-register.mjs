// Registers the site's service worker (sw.js at the site root, scope: the whole site), so
// that after one online visit every page also works offline (web/README.md, "Offline").
// Called by pages/page-common.mjs (lesson, practice) and pages/chooser.mjs (index.html).
//
// Silent by design: nothing happens on file:// pages, in browsers without service workers
// or outside a secure context; a failed registration is a console.info, never an error
// (the site works the same online without it).
// Registration waits until the page has finished its own loading, so that precaching never
// competes with it and finds the page's files in the HTTP cache (a 304 each, see web/sw.js):
// the `load` event; then, on a page that reports its state on <html> (data-engine, set by
// pages/page-common.mjs), until data-lesson / data-practice is ready or error (for the
// lesson, data-first-screen: its other sections mount only when the reader nears them) and
// the engine is no longer loading (at most 15 s); then a quiet stretch (no long task for 3 s,
// at most 30 s: registering costs the page a task of its own, and precaching the whole site
// competes with the fetches of the sections the reader scrolls to), then an idle moment.
// When the browser comes back online, the worker is checked for an update at once (the
// browser also checks on every navigation).

export const SITE_ROOT = new URL('../../', import.meta.url);   // this file is <root>/js/pages/sw-register.mjs
const SETTLE_TIMEOUT_MS = 15000;

/** Resolves when the page's parts and engine are no longer loading (or after the timeout). */
function pageSettled() {
  const html = document.documentElement;
  const settled = () => {
    const d = html.dataset;
    if (!('engine' in d)) return true;                       // a page without these hooks (the chooser)
    const part = d.firstScreen || d.lesson || d.practice;
    return part === 'error' || (!!part && part !== 'loading' && d.engine !== 'loading');
  };
  if (settled()) return Promise.resolve();
  return new Promise((resolve) => {
    const mo = new MutationObserver(() => { if (settled()) done(); });
    const timer = setTimeout(() => done(), SETTLE_TIMEOUT_MS);
    function done() { mo.disconnect(); clearTimeout(timer); resolve(); }
    mo.observe(html, { attributes: true, attributeFilter: ['data-engine', 'data-lesson', 'data-first-screen', 'data-practice'] });
  });
}

const QUIET_MS = 3000;
const QUIET_CAP_MS = 30000;

/** Resolves once no long task (≥ 50 ms) has run for QUIET_MS (or after QUIET_CAP_MS). */
function quiet() {
  return new Promise((resolve) => {
    let timer = setTimeout(done, QUIET_MS);
    const cap = setTimeout(done, QUIET_CAP_MS);
    let po = null;
    try {
      po = new PerformanceObserver(() => { clearTimeout(timer); timer = setTimeout(done, QUIET_MS); });
      po.observe({ type: 'longtask' });
    } catch { /* no Long Tasks API: the plain QUIET_MS wait */ }
    function done() { if (po) po.disconnect(); clearTimeout(timer); clearTimeout(cap); resolve(); }
  });
}

const idle = () => new Promise((resolve) => {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => resolve(), { timeout: 2000 });
  else setTimeout(resolve, 200);
});

const loaded = () => new Promise((resolve) => {
  if (document.readyState === 'complete') resolve();
  else window.addEventListener('load', () => resolve(), { once: true });
});

export function registerServiceWorker() {
  try {
    if (location.protocol !== 'http:' && location.protocol !== 'https:') return;
    if (!window.isSecureContext || !('serviceWorker' in navigator)) return;
    const register = () => {
      navigator.serviceWorker.register(new URL('sw.js', SITE_ROOT).href, { scope: SITE_ROOT.href, updateViaCache: 'none' })
        .then((reg) => {
          window.addEventListener('online', () => { reg.update().catch(() => {}); });
        })
        .catch((err) => console.info('offline support unavailable:', (err && err.message) || err));
    };
    loaded().then(pageSettled).then(quiet).then(idle).then(register);
  } catch (err) {
    console.info('offline support unavailable:', (err && err.message) || err);
  }
}
