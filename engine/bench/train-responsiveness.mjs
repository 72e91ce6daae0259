#!/usr/bin/env node
// Does chapter 14 answer the reader while a model trains? Input-to-next-paint of real key
// presses (Chromium's Event Timing: an entry's duration runs from the input to the paint
// after its handlers), first on an idle page, then with a run training in the chapter's worker.
// A measuring script, not a test.
//
//   node engine/bench/train-responsiveness.mjs [--lang fa] [--phone] [--cpu 4] [--presses 60] [--breakdown] [--json FILE]
//   SITE_DIR=/other/site node engine/bench/train-responsiveness.mjs     (default build/site)
//
// The presses are ArrowRight / ArrowLeft on the attention map's canvas (each moves the current
// cell: a redraw and a live-region update), one every 120 ms, so each input meets whatever the
// page is doing then. --phone: 390 × 844, touch, device scale 3 (the chapter then picks its small
// model); --cpu N slows the page's main thread N times (CDP Emulation.setCPUThrottlingRate), a
// stand-in for a phone's slower cores. Event Timing only reports inputs of 16 ms or more
// (durationThreshold's floor), in steps of 8 ms: an input with no entry was answered within a
// frame (under 16 ms). Long tasks (> 50 ms) of the main thread are counted over each phase, and
// a Chromium trace of each phase gives the main thread's busy time and its tasks longer than a
// frame (an input that arrives during one waits for it).
import { chromium } from 'playwright-core';
import { serveSite } from './serve-site.mjs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
const lang = arg('lang', 'fa');
const phone = process.argv.includes('--phone');
const cpu = Number(arg('cpu', '1'));
const presses = Number(arg('presses', '60'));
const GAP_MS = 120;

const { base, stop: stopServer } = await serveSite();

// Collects every Event Timing entry of a key press and every long task, from page start.
function observe() {
  window.__resp = { events: [], long: [] };
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) {
      if (e.name === 'keydown') window.__resp.events.push({ t: e.startTime, duration: e.duration, wait: e.processingStart - e.startTime, handlers: e.processingEnd - e.processingStart });
    }
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.__resp.long.push({ t: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
}

// The page's main thread over a phase, from a Chromium trace: busy time and the tasks longer
// than a frame (16.7 ms) and than 50 ms. An input arriving during such a task waits for its end.
async function traceStart(cdp) {
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline', transferMode: 'ReturnAsStream' });
}
async function traceEnd(cdp, seconds) {
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  const { stream } = await done;
  let text = '';
  for (;;) { const r = await cdp.send('IO.read', { handle: stream }); text += r.data; if (r.eof) break; }
  await cdp.send('IO.close', { handle: stream });
  const parsed = JSON.parse(text);
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const names = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  const busy = new Map();
  for (const e of events) {
    if (e.name !== 'RunTask' || e.ph !== 'X' || names.get(`${e.pid}:${e.tid}`) !== 'CrRendererMain') continue;
    const k = `${e.pid}:${e.tid}`;
    if (!busy.has(k)) busy.set(k, []);
    busy.get(k).push(e.dur / 1000);
  }
  // the page's renderer: the main thread that worked most (the service worker's has its own)
  const [mainKey, tasks = []] = [...busy.entries()].sort(([, a], [, b]) => b.reduce((x, y) => x + y, 0) - a.reduce((x, y) => x + y, 0))[0] || [];
  // --breakdown: where that thread's time went, by trace event name (inclusive: nested events
  // count in their parents too), per second, the ten largest
  const by = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || e.name === 'RunTask' || `${e.pid}:${e.tid}` !== mainKey) continue;
    by.set(e.name, (by.get(e.name) || 0) + e.dur / 1000 / seconds);
  }
  const breakdown = [...by].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([n, ms]) => `${n} ${Math.round(ms)}`).join(', ');
  return {
    breakdown,
    busyMsPerS: Math.round(tasks.reduce((a, b) => a + b, 0) / seconds),
    over16: tasks.filter((d) => d > 16.7).length, over50: tasks.filter((d) => d > 50).length,
    longestMs: Math.round(Math.max(0, ...tasks)),
  };
}

// n presses on the focused canvas; returns what the page saw between the first and the last
async function pressPhase(page, canvas, cdp) {
  await canvas.focus();
  await traceStart(cdp);
  const t0 = await page.evaluate(() => performance.now());
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
    await page.waitForTimeout(GAP_MS);   // a bench paces its inputs; tests never wait on time
  }
  // the last entries are dispatched after their paint
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
  const t1 = await page.evaluate(() => performance.now());
  const main = await traceEnd(cdp, (t1 - t0) / 1000);
  return page.evaluate(([t0, t1, main]) => ({
    main,
    events: window.__resp.events.filter((e) => e.t >= t0 && e.t <= t1),
    long: window.__resp.long.filter((e) => e.t >= t0 && e.t <= t1),
    ms: t1 - t0,
  }), [t0, t1, main]);
}

function summary(name, r) {
  const slow = r.events.map((e) => e.duration).sort((a, b) => a - b);
  const within = presses - slow.length;
  // every input without an entry took under 16 ms: the median is "< 16" while more than half had none
  const at = (q) => { const k = Math.ceil(q * presses) - 1 - within; return k < 0 ? '<16' : String(slow[k]); };
  return {
    name, presses, withinFrame: within, median: at(0.5), p90: at(0.9), max: slow.length ? slow.at(-1) : '<16',
    worstWait: r.events.length ? Math.round(Math.max(...r.events.map((e) => e.wait))) : 0,
    worstHandlers: r.events.length ? Math.round(Math.max(...r.events.map((e) => e.handlers))) : 0,
    longTasks: r.long.length, longestTask: r.long.length ? Math.round(Math.max(...r.long.map((e) => e.duration))) : 0,
    seconds: Math.round(r.ms / 100) / 10,
    main: r.main,
  };
}

const dir = await mkdtemp(path.join(tmpdir(), 'attn-resp-'));
let results;
try {
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
    ...(phone ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }
      : { viewport: { width: 1280, height: 900 } }),
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.addInitScript(observe);
    const cdp = await context.newCDPSession(page);
    if (cpu > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
    await page.goto(`${base}/${lang}/index.html#train`, { waitUntil: 'load' });
    await page.waitForFunction(() => {
      const s = document.getElementById('train')?.dataset.state;
      return s === 'ready' && document.querySelector('[data-testid="train-status"]')?.dataset.state === 'idle';
    }, null, { timeout: 180000 });
    const canvas = page.locator('[data-testid="train-attn-canvas"]');
    await canvas.scrollIntoViewIfNeeded();
    // The scroll mounts chapter 13 above, whose head scores run about 140 forward passes through
    // its worker (seen with --breakdown: 145 ms/s of message handling in the "idle" phase): the
    // idle phase starts once nothing on the page is still loading or running.
    await page.waitForFunction(() => !document.querySelector('main > section[data-state="loading"], main [data-state="running"]'), null, { timeout: 180000 });
    const size = await page.locator('[data-testid="train-size"]').inputValue().catch(() => '?');
    const idle = summary('idle', await pressPhase(page, canvas, cdp));

    await page.locator('[data-testid="train-run"]').click();
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="train-status"]').dataset.step) > 0, null, { timeout: 120000 });
    const stepBefore = await page.evaluate(() => Number(document.querySelector('[data-testid="train-status"]').dataset.step));
    const training = summary('training', await pressPhase(page, canvas, cdp));
    const st = await page.evaluate(() => ({ ...document.querySelector('[data-testid="train-status"]').dataset }));
    training.steps = Number(st.step) - stepBefore;
    training.tps = Number(st.tps);
    await page.locator('[data-testid="train-run"]').click();
    results = { lang, phone, cpu, size, idle, training, chromium: context.browser()?.version() ?? '' };
  } finally {
    await context.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  stopServer();
}

console.log(`${lang} ${phone ? 'phone 390 px' : 'desktop 1280 px'}${cpu > 1 ? `, CPU ÷${cpu}` : ''}, model size ${results.size}: input to next paint of ${presses} key presses (ms; Event Timing, 8 ms steps)`);
for (const r of [results.idle, results.training]) {
  console.log(`  ${r.name.padEnd(9)} main thread busy ${r.main.busyMsPerS} ms/s, tasks over a frame ${r.main.over16}, over 50 ms ${r.main.over50}, longest ${r.main.longestMs} ms`);
  if (process.argv.includes('--breakdown')) console.log(`  ${''.padEnd(9)} ms/s by event: ${r.main.breakdown}`);
  console.log(`  ${''.padEnd(9)} within a frame ${r.withinFrame}/${r.presses}, median ${r.median}, p90 ${r.p90}, max ${r.max}; worst wait ${r.worstWait}, worst handlers ${r.worstHandlers}; long tasks ${r.longTasks} (longest ${r.longestTask}) in ${r.seconds} s${r.steps !== undefined ? `; ${r.steps} steps, ${r.tps} tokens/s` : ''}`);
}
const json = arg('json', null);
if (json) await writeFile(json, JSON.stringify(results, null, 2));
