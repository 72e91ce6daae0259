#!/usr/bin/env node
// Lighthouse 12 (mobile, its default simulated throttling) on the lesson and practice pages of
// both editions, served compressed as a real host would (build-scripts/serve.mjs: brotli/gzip,
// ETag, no-cache). A measurement, not a test: it is not part of build-scripts/test (a run takes
// about 15 s per page and the score moves with the machine's load).
//
//   node engine/bench/lighthouse.mjs [--runs 3] [--pages fa,ar,fa-practice,ar-practice]
//        [--compare DIR] [--json FILE] [--keep DIR]
//   SITE_DIR=build/site-old node engine/bench/lighthouse.mjs    (default: build/site)
//   --compare build/site-old: a before/after table; the two sites' runs alternate (old, new,
//   old, new…), so a change in the machine's load falls on both alike.
//   CHROMIUM_PATH (default /usr/bin/chromium).
//
// Each page is measured --runs times per site, one run at a time (each in a fresh Chromium
// profile, Lighthouse's own); the table shows the median run by performance score, with every
// run's performance score beside it. --keep DIR keeps every run's full Lighthouse JSON report.
// The score moves with the load of the machine (Lighthouse's simulated throttling scales the
// CPU time it observes): the load average is printed with the table.
// Exit code 0 whatever the scores (the goals of issue 14 item 7 are printed, not enforced).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServe } from '../../build-scripts/static-server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SITE = process.env.SITE_DIR ? path.resolve(process.env.SITE_DIR) : path.join(ROOT, 'build', 'site');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const LIGHTHOUSE = path.join(ROOT, 'node_modules', 'lighthouse', 'cli', 'index.js');
// The flags of tests/browser/helpers.mjs (verified in TOOLCHAIN.md).
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : def; };
const RUNS = Math.max(1, Number(opt('runs', 3)));
const JSON_OUT = opt('json', null);
const KEEP = opt('keep', null);
const COMPARE = opt('compare', null);
const SITES = [...(COMPARE ? [path.resolve(COMPARE)] : []), SITE];
const PAGES = {
  fa: '/fa/index.html', ar: '/ar/index.html',
  'fa-practice': '/fa/practice.html', 'ar-practice': '/ar/practice.html',
};
const PAGE_IDS = opt('pages', Object.keys(PAGES).join(',')).split(',');
for (const id of PAGE_IDS) if (!PAGES[id]) { console.error(`unknown page "${id}" (known: ${Object.keys(PAGES).join(', ')})`); process.exit(2); }
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const GOAL = { performance: 0.95, accessibility: 1, 'best-practices': 1, seo: 1 };

async function startServer(site) {
  const { url, stop } = await spawnServe({ site });
  return { base: url, stop };
}

// One Lighthouse run (its CLI, in a child process) → the parsed JSON report. Stopping this
// script stops the run (Lighthouse closes its Chromium on SIGINT).
let running = null;
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { if (running) running.kill('SIGINT'); process.exit(130); });
function lighthouse(url, outFile) {
  return new Promise((resolve, reject) => {
    const child = running = spawn(process.execPath, [LIGHTHOUSE, url, '--quiet', '--output=json', `--output-path=${outFile}`,
      `--only-categories=${CATEGORIES.join(',')}`, `--chrome-flags=${CHROMIUM_ARGS.join(' ')}`], {
      env: { ...process.env, CHROME_PATH: CHROMIUM }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code) => {
      running = null;
      if (code !== 0) return reject(new Error(`lighthouse ${url} exited ${code}: ${err.slice(-2000)}`));
      try { resolve(JSON.parse(fs.readFileSync(outFile, 'utf8'))); } catch (e) { reject(e); }
    });
  });
}

// On a loaded machine a run sometimes ends with a DevTools protocol timeout: try it again
// (twice at most), saying so.
async function lighthouseRetried(url, outFile) {
  for (let attempt = 1; ; attempt++) {
    try { return await lighthouse(url, outFile); } catch (e) {
      if (attempt >= 3) throw e;
      console.error(`retrying (${e.message.split('\n')[0].slice(0, 200)})`);
    }
  }
}

function summarize(report) {
  const a = report.audits;
  const num = (id) => (a[id] && typeof a[id].numericValue === 'number' ? a[id].numericValue : null);
  return {
    scores: Object.fromEntries(CATEGORIES.map((c) => [c, report.categories[c]?.score ?? null])),
    tbtMs: num('total-blocking-time'), fcpMs: num('first-contentful-paint'), lcpMs: num('largest-contentful-paint'),
    siMs: num('speed-index'), cls: num('cumulative-layout-shift'),
    // what kept a category under 1 (an audit scored below 0.9 with a weight in it)
    failing: Object.fromEntries(CATEGORIES.filter((c) => c !== 'performance').map((c) => [c,
      (report.categories[c]?.auditRefs || []).filter((r) => r.weight > 0 && a[r.id] && a[r.id].score !== null && a[r.id].score < 0.9).map((r) => r.id)])),
    lighthouse: report.lighthouseVersion, userAgent: report.environment?.hostUserAgent,
  };
}

const fmtScore = (x) => (x == null ? '—' : x.toFixed(2));
const fmtMs = (x) => (x == null ? '—' : `${Math.round(x)} ms`);

async function main() {
  if (!fs.existsSync(LIGHTHOUSE)) {
    console.error('lighthouse is not installed (npm ci installs it: a devDependency)');
    process.exit(2);
  }
  const servers = [];
  for (const site of SITES) servers.push({ site, name: path.relative(ROOT, site) || site, ...(await startServer(site)) });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-lighthouse-'));
  if (KEEP) fs.mkdirSync(KEEP, { recursive: true });
  const load = [os.loadavg()[0]];
  const results = Object.fromEntries(servers.map((s) => [s.name, {}]));
  try {
    for (const id of PAGE_IDS) {
      const runs = Object.fromEntries(servers.map((s) => [s.name, []]));
      for (let r = 0; r < RUNS; r++) {
        for (const [k, server] of servers.entries()) {
          const out = path.join(KEEP || tmp, `${id}-${servers.length > 1 ? `site${k + 1}-` : ''}${r + 1}.json`);
          const s = summarize(await lighthouseRetried(server.base + PAGES[id], out));
          runs[server.name].push(s);
          load.push(os.loadavg()[0]);
          console.error(`${server.name} ${id} run ${r + 1}/${RUNS}: performance ${fmtScore(s.scores.performance)}, TBT ${fmtMs(s.tbtMs)}, load ${os.loadavg()[0].toFixed(1)}`);
        }
      }
      for (const server of servers) {
        const sorted = [...runs[server.name]].sort((x, y) => x.scores.performance - y.scores.performance);
        results[server.name][id] = { median: sorted[Math.floor((sorted.length - 1) / 2)], runs: runs[server.name] };
      }
    }
  } finally {
    for (const s of servers) s.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  const rows = [['site', 'page', ...CATEGORIES, 'TBT', 'FCP', 'LCP', 'SI', 'CLS', 'performance, every run']];
  for (const id of PAGE_IDS) {
    for (const server of servers) {
      const { median: m, runs } = results[server.name][id];
      rows.push([server.name, id, ...CATEGORIES.map((c) => fmtScore(m.scores[c])), fmtMs(m.tbtMs), fmtMs(m.fcpMs), fmtMs(m.lcpMs), fmtMs(m.siMs),
        m.cls == null ? '—' : m.cls.toFixed(3), runs.map((x) => fmtScore(x.scores.performance)).join(' ')]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
  const first = results[servers[0].name][PAGE_IDS[0]].median;
  console.log(`Lighthouse ${first.lighthouse}, mobile, simulated throttling; ${first.userAgent}; median of ${RUNS} run(s); ` +
    `1-min load average ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)} on ${os.cpus().length} CPUs`);
  for (const server of servers) {
    for (const [id, { median: m }] of Object.entries(results[server.name])) {
      const below = CATEGORIES.filter((c) => m.scores[c] == null || m.scores[c] < GOAL[c]);
      const failing = Object.entries(m.failing).filter(([, ids]) => ids.length).map(([c, ids]) => `${c}: ${ids.join(', ')}`);
      console.log(`${server.name} ${id}: ${below.length ? `below the goal in ${below.join(', ')}` : 'every goal met'}${failing.length ? ` (${failing.join('; ')})` : ''}`);
    }
  }
  if (JSON_OUT) {
    fs.writeFileSync(JSON_OUT, JSON.stringify({ date: new Date().toISOString(), runs: RUNS, loadAverage: load, goal: GOAL, results }, null, 1) + '\n');
    console.log(`wrote ${JSON_OUT}`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
