#!/usr/bin/env node
// Page metrics (issue 5, target 7): first render, readiness, bytes over the network and
// slider redraw time of the lesson and practice pages, each visit in a FRESH headless
// Chromium profile. A measuring script (the benchmark calls it), not a test.
//
//   node engine/bench/page-metrics.mjs [--json FILE] [--runs 3] [--moves 30]
//        [--pages fa,ar,fa-practice,ar-practice] [--verbose]
//   SITE_DIR=build/site-perf node engine/bench/page-metrics.mjs     (default: build/site)
//   CHROMIUM_PATH (default /usr/bin/chromium); SERVE_SCRIPT (default build-scripts/serve.mjs:
//   another server, e.g. an older one for a before/after comparison)
//
// How it measures:
// - build-scripts/serve.mjs runs on a free port (SITE_DIR chooses the site copy); Chromium
//   reaches it through a small TCP relay in this process that counts every byte the
//   server sends (headers and bodies, every connection): "wire bytes", the ground truth.
// - Chromium (the flags of tests/browser/helpers.mjs, fresh --user-data-dir per visit) is
//   driven over the raw DevTools protocol (the `ws` client bundled with playwright-core):
//   browser-level auto-attach with waitForDebuggerOnStart, so the page, its dedicated
//   workers (the engine) and the service worker are each paused until Network.enable has
//   run in them. Bytes per request = Network.loadingFinished.encodedDataLength (headers
//   + body as received); responses served by the service worker or from the HTTP cache
//   are not network bytes (their network fetch, if any, is counted where it happened).
//   The CDP sum is printed next to the wire sum, so a missed request shows.
// - A visit lasts until the page is ready (html[data-lesson|data-practice]="ready" and
//   html[data-engine]="ready", as tests/browser/lesson-helpers.mjs waits), the service
//   worker controls the page (its precache is done) and the network has been quiet for 2 s.
// - first contentful paint: the paint timing entry; ready: when both attributes became
//   "ready" (a MutationObserver installed before any page script).
// - slider redraw (lesson sliders on lesson-sized data, n ≤ 64): a real key press
//   (Input.dispatchKeyEvent ArrowUp/Down on the focused slider); time from the keydown
//   event's timestamp to the first frame after the heatmap's update: the heatmap widget
//   records a `heatmap:<testid>` performance measure when it has redrawn; the page then
//   waits for requestAnimationFrame and a task after it (the frame's paint has run).
//   Each move waits for the previous one. Median and p95 over --moves moves.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { defaultLanguage } from '../../web/js/i18n/languages.mjs';
import { spawnServe } from '../../build-scripts/static-server.mjs';

const require = createRequire(import.meta.url);
const { ws: WebSocket } = require('playwright-core/lib/utilsBundle');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SITE = process.env.SITE_DIR ? path.resolve(process.env.SITE_DIR) : path.join(ROOT, 'build', 'site');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : def; };
const JSON_OUT = opt('json', null);
const RUNS = Math.max(1, Number(opt('runs', 3)));
const MOVES = Math.max(1, Number(opt('moves', 30)));
const VERBOSE = args.includes('--verbose');
const PAGE_IDS = opt('pages', 'fa,ar,fa-practice,ar-practice').split(',');

const PAGES = {
  fa: { path: '/fa/index.html', kind: 'lesson' },
  ar: { path: '/ar/index.html', kind: 'lesson' },
  'fa-practice': { path: '/fa/practice.html', kind: 'practice' },
  'ar-practice': { path: '/ar/practice.html', kind: 'practice' },
};

// The interactive sliders measured, by page kind. `positions`: slider indices the moves
// stay within (n ≤ 64 for s3-n). `setup`: page code run first (practice: reveal e1).
const SLIDERS = {
  lesson: [
    { id: 's4-dk', heatmap: 's4-heatmap', what: 's4 √d_k slider (n = 8, d_k 1…1024)' },
    { id: 's3-row', heatmap: 's3-loop-row', what: 's3 query-row slider (n = 4)' },
    { id: 's3-n', heatmap: 's3-matrix', what: 's3 n slider, n 4…64 (weights heatmap)', positions: [0, 4] },
    { id: 'floor', floor: true, near: 's4-dk' },
  ],
  practice: [
    {
      id: 'try-e1-dk', heatmap: 'try-e1-heat', what: 'practice e1 d_k slider (n = 8)',
      setup: `(async () => {
        const art = document.querySelector('[data-testid="try-experiment"][data-id="e1"]');
        art.querySelector('[data-testid="try-choice"]').click();
        art.querySelector('[data-testid="try-commit"]').click();
        for (let i = 0; i < 200 && !document.querySelector('[data-testid="try-e1-heat"][data-rows]'); i++) await new Promise((r) => setTimeout(r, 50));
      })()`,
    },
    { id: 'floor', floor: true, near: 'try-e1-dk' },
  ],
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (a) => { if (!a.length) return null; const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const pctl = (a, p) => { if (!a.length) return null; const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]; };
const kb = (b) => (b == null ? '—' : `${(b / 1024).toFixed(1)} KiB`);
const ms = (x) => (x == null ? '—' : `${x.toFixed(1)} ms`);

async function startServer() {
  return spawnServe({ site: SITE, ...(process.env.SERVE_SCRIPT ? { script: path.resolve(process.env.SERVE_SCRIPT) } : {}) });
}

// A TCP relay in front of the server: counts the bytes the server sends to the browser.
export async function startRelay(targetPort) {
  const counter = { down: 0, up: 0, connections: 0 };
  const sockets = new Set();
  const server = net.createServer((client) => {
    counter.connections++;
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client); sockets.add(upstream);
    client.on('data', (d) => { counter.up += d.length; });
    upstream.on('data', (d) => { counter.down += d.length; });
    client.pipe(upstream); upstream.pipe(client);
    const end = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
    client.on('error', end); upstream.on('error', end); client.on('close', end); upstream.on('close', end);
  });
  const port = await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
  return {
    port, counter,
    reset() { counter.down = 0; counter.up = 0; counter.connections = 0; },
    closeSockets() { for (const s of sockets) s.destroy(); sockets.clear(); },
    stop() { for (const s of sockets) s.destroy(); server.close(); },
  };
}

// ------------------------------------------------------------------ Chromium over raw CDP
async function launchChromium() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-metrics-'));
  const child = spawn(CHROMIUM, [...CHROMIUM_ARGS, '--remote-debugging-port=0', `--user-data-dir=${profile}`,
    '--window-size=1280,900', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const portFile = path.join(profile, 'DevToolsActivePort');
  let wsUrl = null;
  for (let i = 0; i < 300 && !wsUrl; i++) {
    if (child.exitCode !== null) throw new Error(`chromium exited (${child.exitCode}): ${stderr.slice(-500)}`);
    try {
      const [port, p] = fs.readFileSync(portFile, 'utf8').trim().split('\n');
      if (port && p) wsUrl = `ws://127.0.0.1:${port}${p}`;
    } catch { /* not yet */ }
    if (!wsUrl) await sleep(50);
  }
  if (!wsUrl) throw new Error('chromium did not open its DevTools port');
  const cdp = await connect(wsUrl);
  return {
    cdp,
    async close() {
      try { await Promise.race([cdp.send('Browser.close'), sleep(3000)]); } catch { /* gone */ }
      cdp.close();
      for (let i = 0; i < 60 && child.exitCode === null; i++) await sleep(50);
      if (child.exitCode === null) { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

function connect(url) {
  return new Promise((resolve, reject) => {
    const sock = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    let nextId = 1;
    const pending = new Map();
    const listeners = [];
    const cdp = {
      send(method, params = {}, sessionId) {
        const id = nextId++;
        sock.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
        return new Promise((res, rej) => pending.set(id, { res, rej, method }));
      },
      on(fn) { listeners.push(fn); },
      close() { try { sock.close(); } catch { /* closed */ } },
    };
    sock.on('message', (data) => {
      const msg = JSON.parse(String(data));
      if (msg.id) {
        const p = pending.get(msg.id);
        if (!p) return;
        pending.delete(msg.id);
        if (msg.error) p.rej(new Error(`${p.method}: ${msg.error.message}`)); else p.res(msg.result);
      } else for (const fn of listeners) fn(msg.method, msg.params, msg.sessionId);
    });
    sock.on('open', () => resolve(cdp));
    sock.on('error', reject);
    sock.on('close', () => { for (const p of pending.values()) p.rej(new Error('CDP connection closed')); pending.clear(); });
  });
}

// Installed in the page before any of its scripts: readiness and a synchronous hook on the
// heatmap widget's performance measures (PerformanceObserver callbacks arrive late).
const INIT_SCRIPT = `(() => {
  const pm = window.__pm = { readyAt: null, marks: [], onMeasure: null };
  const check = () => {
    const d = document.documentElement.dataset;
    const kind = d.lesson !== undefined ? d.lesson : d.practice;
    // the pages build a section when the reader nears it; a visit here reads all of them
    const parts = window.__lesson || window.__practice;
    if (parts && !pm.askedAll) { pm.askedAll = true; parts.mountAll(); }
    if (pm.readyAt == null && kind === 'ready' && d.engine === 'ready') pm.readyAt = performance.now();
  };
  // (no <html> element yet when this runs: watch the document)
  new MutationObserver(check).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-lesson', 'data-first-screen', 'data-practice', 'data-engine'] });
  const measure = performance.measure.bind(performance);
  performance.measure = function (name, o) {
    const e = measure(name, o);
    try { if (pm.onMeasure && typeof name === 'string' && name.startsWith('heatmap:')) pm.onMeasure(name, e); } catch {}
    return e;
  };
})();`;

function typeOf(url, mime = '') {
  const p = new URL(url).pathname;
  if (/\.(woff2?|ttf|otf)$/.test(p) || mime.startsWith('font/')) return 'font';
  if (/\.wasm$/.test(p)) return 'wasm';
  if (/\.m?js$/.test(p)) return 'js';
  if (/\.css$/.test(p)) return 'css';
  return 'other';
}

/**
 * One first visit of a page in a fresh profile. Also used by tests/browser/page-budget.test.mjs
 * (moves: 0, no sliders). Returns {timing, bytes: {wire, cdp, byType, bySource, all…}, sliders}.
 */
export async function visit(origin, relay, pageId, { moves = MOVES, verbose = VERBOSE } = {}) {
  const VERBOSE = verbose;
  const spec = PAGES[pageId];
  const br = await launchChromium();
  const { cdp } = br;
  const sessions = new Map();      // sessionId → {type, url}
  const reqs = new Map();          // requestId → {url, target, status, bytes, …}
  const pageSessions = new Map();  // targetId → sessionId
  let lastNet = Date.now();

  cdp.on(async (method, p, sessionId) => {
    if (method === 'Target.attachedToTarget') {
      const { sessionId: sid, targetInfo: t } = p;
      sessions.set(sid, { type: t.type, url: t.url });
      const wanted = ['page', 'iframe', 'worker', 'service_worker', 'shared_worker'].includes(t.type);
      // Sent together (one session handles them in order): Network.enable is in place before the
      // target runs. Awaiting each in turn stalls a paused service worker.
      const cmds = [];
      if (wanted) {
        cmds.push(cdp.send('Network.enable', {}, sid));
        cmds.push(cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, sid));
        if (t.type === 'page') {
          cmds.push(cdp.send('Page.enable', {}, sid));
          cmds.push(cdp.send('Runtime.enable', {}, sid));
          cmds.push(cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: INIT_SCRIPT }, sid));
        }
      }
      if (p.waitingForDebugger) cmds.push(cdp.send('Runtime.runIfWaitingForDebugger', {}, sid));
      const res = await Promise.allSettled(cmds);
      // navigate only once all of the above has been processed (browser- and renderer-side)
      if (wanted && t.type === 'page') pageSessions.set(t.targetId, sid);
      if (VERBOSE) console.error('attached', t.type, t.url, p.waitingForDebugger, res.filter((r) => r.status === 'rejected').map((r) => r.reason.message));
      return;
    }
    if (VERBOSE && method === 'Runtime.exceptionThrown') console.error('exception', JSON.stringify(p.exceptionDetails).slice(0, 400));
    if (!method.startsWith('Network.')) return;
    const key = p.requestId;   // unique in the browser; a worker's script shows in two sessions
    if (method === 'Network.requestWillBeSent') {
      if (!/^https?:/.test(p.request.url)) return;
      const prev = reqs.get(key);   // (a redirect reuses the id)
      reqs.set(key, { ...(prev || {}), url: p.request.url, target: sessions.get(sessionId)?.type, bytes: prev?.bytes ?? 0, done: false });
      lastNet = Date.now();
    } else if (method === 'Network.responseReceived') {
      const r = reqs.get(key);
      if (!r) return;
      const res = p.response;
      Object.assign(r, {
        status: res.status, mime: res.mimeType, fromSW: !!res.fromServiceWorker,
        fromCache: !!(res.fromDiskCache || res.fromPrefetchCache), encoding: res.headers?.['content-encoding'] || res.headers?.['Content-Encoding'] || '',
      });
    } else if (method === 'Network.requestServedFromCache') {
      const r = reqs.get(key); if (r) r.fromCache = true;
    } else if (method === 'Network.loadingFinished' || method === 'Network.loadingFailed') {
      const r = reqs.get(key);
      if (!r || r.done) return;
      r.done = true;
      r.failed = method === 'Network.loadingFailed';
      r.bytes = p.encodedDataLength ?? 0;
      lastNet = Date.now();
    }
  });

  relay.reset();
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
  // A new tab: it starts paused (waitForDebuggerOnStart), so the init script is in place first.
  const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
  for (let i = 0; i < 250 && !pageSessions.has(targetId); i++) await sleep(20);
  if (!pageSessions.has(targetId)) throw new Error('no page target');
  const S = pageSessions.get(targetId);
  const evaluate = async (expression, { await: awaitPromise = true, timeout = 60000 } = {}) => {
    const r = await Promise.race([
      cdp.send('Runtime.evaluate', { expression, awaitPromise, returnByValue: true }, S),
      sleep(timeout).then(() => { throw new Error(`evaluate timed out: ${expression.slice(0, 80)}`); }),
    ]);
    if (r.exceptionDetails) throw new Error(`page: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
    return r.result.value;
  };

  const t0 = Date.now();
  await cdp.send('Page.navigate', { url: origin + spec.path }, S);
  // ready + controlled by the service worker + 2 s without network activity
  let ready = false, controlled = false;
  let lastWire = -1, lastWireAt = Date.now();
  const deadline = Date.now() + 90000;
  while (Date.now() < deadline) {
    await sleep(100);
    const st = await evaluate(`(() => { const d = document.documentElement.dataset;
      return { ready: window.__pm && window.__pm.readyAt != null, failed: d.engine === 'error' || d.lesson === 'error' || d.practice === 'error',
        controlled: !!(navigator.serviceWorker && navigator.serviceWorker.controller) }; })()`, { timeout: 10000 }).catch(() => null);
    if (VERBOSE) console.error('state', JSON.stringify(st), relay.counter.down);
    if (!st) continue;
    if (st.failed) throw new Error(`${pageId}: the page reported an error`);
    ready = st.ready; controlled = st.controlled;
    if (relay.counter.down !== lastWire) { lastWire = relay.counter.down; lastWireAt = Date.now(); }
    // quiet: no request started or finished and no byte from the server for 2 s
    if (ready && controlled && Date.now() - lastNet > 2000 && Date.now() - lastWireAt > 2000) break;
  }
  if (!ready) throw new Error(`${pageId}: not ready after 90 s (${await evaluate('typeof window.__pm + " " + JSON.stringify(document.documentElement.dataset)').catch((e) => e.message)})`);
  const timing = await evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0] || {};
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    const fp = performance.getEntriesByName('first-paint')[0];
    return { fcp: fcp ? fcp.startTime : null, firstPaint: fp ? fp.startTime : null, ready: window.__pm.readyAt,
      domContentLoaded: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, responseEnd: nav.responseEnd };
  })()`);

  // bytes
  const list = [...reqs.values()];
  const counted = list.filter((r) => r.done && !r.fromSW && !r.fromCache);
  const byType = { font: 0, wasm: 0, js: 0, css: 0, other: 0 };
  const bySource = {};
  for (const r of counted) {
    byType[typeOf(r.url, r.mime)] += r.bytes;
    bySource[r.target] = (bySource[r.target] || 0) + r.bytes;
  }
  const cdpTotal = counted.reduce((s, r) => s + r.bytes, 0);
  const result = {
    page: pageId, url: spec.path, visitSeconds: (Date.now() - t0) / 1000,
    timing, controlled,
    bytes: {
      wire: relay.counter.down, cdp: cdpTotal, byType, bySource,
      requests: counted.length, swFetches: counted.filter((r) => r.target === 'service_worker').length,
      encodings: counted.reduce((o, r) => { const e = r.encoding || 'identity'; o[e] = (o[e] || 0) + 1; return o; }, {}),
      largest: counted.sort((a, b) => b.bytes - a.bytes).slice(0, 8).map((r) => ({ path: new URL(r.url).pathname, bytes: r.bytes, by: r.target })),
    },
    sliders: {},
  };
  result.bytes.all = counted.map((r) => ({ path: new URL(r.url).pathname, bytes: r.bytes, by: r.target, status: r.status, enc: r.encoding }));

  // sliders
  for (const sl of moves > 0 ? SLIDERS[spec.kind] || [] : []) {
    try {
      result.sliders[sl.id] = await measureSlider(cdp, S, evaluate, sl, moves);
    } catch (e) {
      result.sliders[sl.id] = { what: sl.what, error: e.message };
    }
  }
  await br.close();
  relay.closeSockets();
  return result;
}

async function pressKey(cdp, S, key) {
  const code = { ArrowUp: 38, ArrowDown: 40 }[key];
  await cdp.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key, code: key, windowsVirtualKeyCode: code, nativeVirtualKeyCode: code }, S);
  await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key, code: key, windowsVirtualKeyCode: code, nativeVirtualKeyCode: code }, S);
}

// The floor under every slider number: a key press on a focused element whose handler
// only changes its own text, to the first frame after it. It is the input delay plus the
// wait for the next frame (up to one refresh interval) plus a minimal frame on this page
// and machine: what no redraw can go below.
async function measureFloor(cdp, S, evaluate, MOVES, near) {
  await evaluate(`(() => {
    const d = document.createElement('output');
    d.id = '__pm-floor'; d.tabIndex = 0; d.textContent = '0';
    const host = document.querySelector('[data-testid="${near}"]');
    (host ? host.parentElement : document.body).prepend(d);
    d.addEventListener('keydown', (e) => { e.preventDefault(); d.textContent = String(Number(d.textContent) + 1); });   // (no scrolling)
    d.scrollIntoView({ block: 'center' }); d.focus();
  })()`);
  await sleep(300);
  const totals = [];
  for (let k = 0; k < MOVES; k++) {
    await evaluate(`(() => {
      const d = document.getElementById('__pm-floor');
      window.__pm.move = new Promise((resolve) => {
        d.addEventListener('keydown', (e) => {
          const t0 = e.timeStamp;
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => resolve({ total: performance.now() - t0 });
            ch.port2.postMessage(0);
          });
        }, { once: true });
      });
      return true;
    })()`);
    await pressKey(cdp, S, 'ArrowUp');
    totals.push((await evaluate('window.__pm.move', { timeout: 15000 })).total);
    await sleep(60);
  }
  await evaluate(`document.getElementById('__pm-floor')?.remove()`);
  return { what: 'floor: key press → next frame, trivial change', moves: totals.length,
    total: { median: median(totals), p95: pctl(totals, 95), max: Math.max(...totals) } };
}

async function measureSlider(cdp, S, evaluate, sl, MOVES) {
  if (sl.floor) return measureFloor(cdp, S, evaluate, MOVES, sl.near);
  if (sl.setup) await evaluate(sl.setup);
  const sel = `[data-testid="${sl.id}"]`;
  const info = await evaluate(`(() => { const i = document.querySelector('${sel}'); if (!i) return null;
    i.scrollIntoView({ block: 'center' }); i.focus();
    return { min: Number(i.min), max: Number(i.max), value: Number(i.value), focused: document.activeElement === i }; })()`);
  if (!info) throw new Error(`no slider ${sl.id}`);
  if (!info.focused) throw new Error(`slider ${sl.id} did not take the focus`);
  await sleep(300);
  const [lo, hi] = sl.positions || [info.min, info.max];
  let pos = info.value;
  // bring the slider inside [lo, hi] first (not measured)
  while (pos > hi) { await pressKey(cdp, S, 'ArrowDown'); pos--; await sleep(300); }
  while (pos < lo) { await pressKey(cdp, S, 'ArrowUp'); pos++; await sleep(300); }
  let dir = pos < hi ? 1 : -1;
  const totals = [], updates = [], engineParts = [];
  for (let k = 0; k < MOVES; k++) {
    if (pos + dir > hi || pos + dir < lo) dir = -dir;
    const key = dir > 0 ? 'ArrowUp' : 'ArrowDown';   // (Right/Left run backwards in RTL)
    // arm: keydown timestamp → the heatmap's measure → rAF → a task after the frame
    await evaluate(`(() => {
      const input = document.querySelector('${sel}');
      window.__pm.move = new Promise((resolve, reject) => {
        let t0 = null;
        input.addEventListener('keydown', (e) => { t0 = e.timeStamp; }, { capture: true, once: true });
        const timer = setTimeout(() => { window.__pm.onMeasure = null; reject(new Error('no redraw within 10 s')); }, 10000);
        window.__pm.onMeasure = (name, e) => {
          if (name !== 'heatmap:${sl.heatmap}' || t0 == null) return;
          window.__pm.onMeasure = null;
          const updated = performance.now();
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => { clearTimeout(timer); resolve({ total: performance.now() - t0, update: e ? e.duration : null, beforeUpdate: (e ? e.startTime : updated) - t0 }); };
            ch.port2.postMessage(0);
          });
        };
      });
      return true;
    })()`);
    await pressKey(cdp, S, key);
    pos += dir;
    const r = await evaluate('window.__pm.move', { timeout: 15000 });
    totals.push(r.total); updates.push(r.update); engineParts.push(r.beforeUpdate);
    await sleep(60);
  }
  const sum = (a) => ({ median: median(a), p95: pctl(a, 95), max: Math.max(...a) });
  return { what: sl.what, moves: totals.length, total: sum(totals), heatmapUpdate: sum(updates.filter((x) => x != null)), beforeUpdate: sum(engineParts) };
}

// ------------------------------------------------------------------ sizes on disk
function siteFiles(dir = SITE) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory()
    ? siteFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

async function main() {
  if (!fs.existsSync(path.join(SITE, defaultLanguage(), 'index.html'))) throw new Error(`no site at ${SITE} (build it first)`);
  const files = siteFiles();
  const disk = { files: files.length, bytes: files.reduce((s, f) => s + fs.statSync(f).size, 0) };
  const server = await startServer();
  const relay = await startRelay(server.port);
  const origin = `http://127.0.0.1:${relay.port}`;
  const runs = {};
  try {
    for (const id of PAGE_IDS) {
      if (!PAGES[id]) throw new Error(`unknown page ${id} (${Object.keys(PAGES)})`);
      runs[id] = [];
      for (let r = 0; r < RUNS; r++) {
        const res = await visit(origin, relay, id);
        runs[id].push(res);
        if (VERBOSE) console.error(JSON.stringify(res, null, 1));
        if (!VERBOSE) delete res.bytes.all;
        else process.stderr.write(`${id} run ${r + 1}/${RUNS}: fcp ${ms(res.timing.fcp)}, ready ${ms(res.timing.ready)}, ${kb(res.bytes.wire)} wire\n`);
      }
    }
  } finally {
    relay.stop();
    server.stop();
  }

  // summary per page: medians over runs
  const summary = {};
  for (const [id, rs] of Object.entries(runs)) {
    const m = (f) => median(rs.map(f).filter((x) => x != null));
    const sliders = {};
    for (const key of Object.keys(rs[0].sliders)) {
      const ok = rs.map((r) => r.sliders[key]).filter((s) => s && !s.error);
      sliders[key] = ok.length ? {
        what: ok[0].what,
        medianMs: median(ok.map((s) => s.total.median)), p95Ms: median(ok.map((s) => s.total.p95)),
        heatmapUpdateMedianMs: ok[0].heatmapUpdate ? median(ok.map((s) => s.heatmapUpdate.median)) : null,
        beforeUpdateMedianMs: ok[0].beforeUpdate ? median(ok.map((s) => s.beforeUpdate.median)) : null,
        moves: ok.reduce((s, x) => s + x.moves, 0),
      } : { what: rs[0].sliders[key].what, error: rs[0].sliders[key].error };
    }
    const types = {};
    for (const t of ['font', 'wasm', 'js', 'css', 'other']) types[t] = m((r) => r.bytes.byType[t]);
    summary[id] = {
      fcpMs: m((r) => r.timing.fcp), readyMs: m((r) => r.timing.ready), loadMs: m((r) => r.timing.load),
      wireBytes: m((r) => r.bytes.wire), cdpBytes: m((r) => r.bytes.cdp), byType: types,
      requests: m((r) => r.bytes.requests), swFetches: m((r) => r.bytes.swFetches), sliders,
    };
  }

  const out = {
    site: path.relative(ROOT, SITE) || SITE, server: process.env.SERVE_SCRIPT || 'build-scripts/serve.mjs', date: new Date().toISOString(), runs: RUNS, moves: MOVES,
    targets: { fcpMs: 1000, transferBytes: 1.5e6, sliderMs: 16 },
    disk, summary, detail: runs,
  };
  printTable(out);
  if (JSON_OUT) {
    fs.mkdirSync(path.dirname(path.resolve(JSON_OUT)), { recursive: true });
    fs.writeFileSync(JSON_OUT, JSON.stringify(out, null, 1) + '\n');
    console.log(`\nwrote ${JSON_OUT}`);
  }
}

function printTable(out) {
  const pad = (s, n) => String(s).padStart(n);
  console.log(`\npage metrics: ${out.site} (${out.disk.files} files, ${kb(out.disk.bytes)} on disk; server ${out.server}), median of ${out.runs} fresh-profile visit(s)`);
  console.log(`targets: first render < 1 s, transfer < 1.5 MB (1,500,000 B), slider redraw < 16 ms\n`);
  const cols = ['page', 'FCP', 'ready', 'wire bytes', 'CDP bytes', 'font', 'wasm', 'js', 'css', 'other', 'req', 'sw'];
  const w = [12, 10, 10, 12, 12, 11, 11, 11, 10, 11, 5, 5];
  console.log(cols.map((c, i) => pad(c, w[i])).join(' '));
  for (const [id, s] of Object.entries(out.summary)) {
    const row = [id, ms(s.fcpMs), ms(s.readyMs), s.wireBytes, s.cdpBytes, kb(s.byType.font), kb(s.byType.wasm), kb(s.byType.js), kb(s.byType.css), kb(s.byType.other), s.requests, s.swFetches];
    console.log(row.map((c, i) => pad(c, w[i])).join(' '));
  }
  console.log('\nslider redraw (key press → first frame after the heatmap redrew), median / p95 per visit, median over visits:');
  for (const [id, s] of Object.entries(out.summary)) {
    for (const [sid, v] of Object.entries(s.sliders)) {
      if (v.error) { console.log(`  ${id.padEnd(12)} ${sid.padEnd(10)} error: ${v.error}`); continue; }
      const parts = v.heatmapUpdateMedianMs == null ? '' : `heatmap.update ${ms(v.heatmapUpdateMedianMs)}, key→update ${ms(v.beforeUpdateMedianMs)}; `;
      console.log(`  ${id.padEnd(12)} ${sid.padEnd(10)} median ${ms(v.medianMs)}  p95 ${ms(v.p95Ms)}  (${parts}${v.moves} moves)  ${v.what}`);
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((e) => { console.error(e.stack || e); process.exit(1); });
}
