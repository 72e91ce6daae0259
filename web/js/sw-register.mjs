// Registers the site's service worker (sw.js at the site root, scope: the whole site), so
// that after one online visit every page also works offline (web/README.md, "Offline").
// Called by pages/page-common.mjs (lesson, practice) and pages/chooser.mjs (index.html).
//
// Silent by design: nothing happens on file:// pages, in browsers without service workers
// or outside a secure context; a failed registration is a console.info, never an error
// (the site works the same online without it). Registration waits for the page's `load`
// event so that precaching never competes with the page's own files. When the browser
// comes back online, the worker is checked for an update at once (the browser also checks
// on every navigation).

const ROOT = new URL('../', import.meta.url);   // this file is <root>/js/sw-register.mjs

export function registerServiceWorker() {
  try {
    if (location.protocol !== 'http:' && location.protocol !== 'https:') return;
    if (!window.isSecureContext || !('serviceWorker' in navigator)) return;
    const register = () => {
      navigator.serviceWorker.register(new URL('sw.js', ROOT).href, { scope: ROOT.href, updateViaCache: 'none' })
        .then((reg) => {
          window.addEventListener('online', () => { reg.update().catch(() => {}); });
        })
        .catch((err) => console.info('offline support unavailable:', (err && err.message) || err));
    };
    if (document.readyState === 'complete') register();
    else window.addEventListener('load', register, { once: true });
  } catch (err) {
    console.info('offline support unavailable:', (err && err.message) || err);
  }
}
