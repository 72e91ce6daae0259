// The site's service worker: every page works offline once one page was opened online
// (web/README.md, "Offline"). Served as build/site/sw.js, so its scope is the whole site.
// Registered by web/js/pages/sw-register.mjs.
//
// build-scripts/make-site.mjs fills the two placeholders below: MANIFEST, every file of
// build/site except this one (paths relative to the site root), and VERSION, a hash of all
// of them (and of this file). Any change to the site therefore changes these bytes, the
// browser installs the new worker, and the new worker replaces the old cache.
//
//   install   precache every MANIFEST file (but the engine build this browser cannot use)
//             into `<prefix><VERSION>`, then take over at once
//             (skipWaiting). Each request revalidates with the server (cache: 'no-cache'):
//             a file the page has just downloaded comes back as a bodiless 304 (the server
//             sends ETags), a changed one in full, so a first visit downloads each file once
//             (web/README.md, "Load budget").
//   activate  delete this site's caches of other versions; claim the open pages
//   fetch     same-origin GET only (anything else goes to the network untouched);
//             pages (navigations) and text/*.json: network first, the cached copy when the
//             network fails (so edits show up whenever the learner is online), and a fresh
//             copy is stored for the next offline visit;
//             everything else (JS, wasm, CSS, fonts, KaTeX, ts-fsrs): cache first, network
//             when missing.
//   Matching ignores the query string (the lesson keeps its state there: ?s4.dk=64…) and
//   maps a directory URL (fa/) to its index.html.

const VERSION = /* @sw-version */ 'dev';
const MANIFEST = /* @sw-manifest */ [];

const ROOT = new URL('./', self.location.href);                // the site root (= the scope)
const PREFIX = `attn-site:${ROOT.pathname}:`;                  // one origin may host other sites
const CACHE = PREFIX + VERSION;

/** Cache key of a site URL: no query, no hash; a directory → its index.html. */
function keyOf(url) {
  const u = new URL(url);
  u.search = '';
  u.hash = '';
  if (u.pathname.endsWith('/')) u.pathname += 'index.html';
  return u.href;
}

function isText(url) {
  const rel = url.pathname.slice(ROOT.pathname.length);
  return rel.startsWith('text/') && rel.endsWith('.json');
}

/** A response worth keeping: a complete, same-origin, non-redirected 200. */
const storable = (res) => res && res.status === 200 && res.type === 'basic' && !res.redirected;

async function fromCache(key) {
  const cache = await caches.open(CACHE);
  return cache.match(key);
}

async function store(key, res) {
  try {
    const cache = await caches.open(CACHE);
    await cache.put(key, res);
  } catch { /* quota or a closed cache: the network copy was still served */ }
}

// The engine ships two builds and loads one (engine.mjs, wasmBuild): attn-relaxed.wasm
// where WebAssembly has relaxed SIMD, attn.wasm elsewhere. The same probe (the smallest
// module with f32x4.relaxed_madd) decides here which one this browser will never load,
// so a first visit does not download it.
const RELAXED_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123,
  3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 1, 32, 2, 253, 133, 2, 11]);
function unusedEngineBuild() {
  let relaxed = false;
  try { relaxed = WebAssembly.validate(RELAXED_PROBE); } catch { relaxed = false; }
  return relaxed ? 'js/attn.wasm' : 'js/attn-relaxed.wasm';
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const unused = unusedEngineBuild();
    // All or nothing: if one file fails, the install fails and the old worker stays.
    // 'no-cache': never a stale copy from the HTTP cache, but an unchanged one costs a 304.
    await cache.addAll(MANIFEST.filter((p) => p !== unused)
      .map((p) => new Request(new URL(p, ROOT).href, { cache: 'no-cache' })));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

async function networkFirst(event, url, key) {
  let res;
  try {
    res = await fetch(event.request);
  } catch (err) {
    const cached = await fromCache(key);
    if (cached) return cached;
    // "fa" (no slash) offline: send the page to "fa/" so its relative links resolve as online.
    if (event.request.mode === 'navigate' && !url.pathname.endsWith('/') && await fromCache(keyOf(url.href + '/'))) {
      return Response.redirect(new URL(url.pathname + '/' + url.search, url).href, 301);
    }
    throw err;
  }
  if (storable(res)) event.waitUntil(store(key, res.clone()));
  else if (res.status >= 500) {
    const cached = await fromCache(key);                      // a broken server: the last good copy
    if (cached) return cached;
  }
  return res;
}

async function cacheFirst(event, key) {
  const cached = await fromCache(key);
  if (cached) return cached;
  const res = await fetch(event.request);
  if (storable(res)) event.waitUntil(store(key, res.clone()));
  return res;
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith(ROOT.pathname)) return;
  if (req.headers.has('range')) return;                        // partial content: not ours to cache
  const key = keyOf(url.href);
  if (req.mode === 'navigate' || isText(url)) event.respondWith(networkFirst(event, url, key));
  else event.respondWith(cacheFirst(event, key));
});
