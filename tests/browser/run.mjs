#!/usr/bin/env node
// Single entry point of the browser tests: `node tests/browser/run.mjs`.
// 1. starts the static server (build-scripts/serve.mjs) on a free port,
// 2. runs every tests/browser/*.test.mjs with node:test (one Chromium per
//    file, launched by helpers.mjs with a fresh temporary profile),
// 3. always stops the server and the test processes (and with them
//    Chromium), and exits with the test runner's code.
// Output ends with node:test's summary and the ten slowest tests. Options: extra args are passed to
// `node --test` (e.g. --test-name-pattern=causal); TEST_FILES=a,b limits files;
// BASE_URL=http://… skips starting the server.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { profilePids } from './profile-pids.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const SITE = path.join(REPO, 'build', 'site');
// 50 min: a hung run is still caught well inside CI's 90 min; the whole suite (12 chapters) took
// 27 min with nothing else running (2026-12-01, its own load 6-12) and 34 min beside other work,
// and passed 30 min at load 15, where the old 30 min cut it off with no test failed.
const WATCHDOG_MS = Number(process.env.BROWSER_TESTS_TIMEOUT_MS || 3000000);

// Chromium profiles go under a directory of our own, so that any browser
// left behind by a crashed test process can be found by its
// --user-data-dir and stopped by pid (never by name).
const PROFILE_ROOT = mkdtempSync(path.join(tmpdir(), 'attn-browser-tests-'));
const groups = [];
function track(child) {
  groups.push(child.pid);
  return child;
}
function killAll(signal = 'SIGTERM') {
  // Each child leads its own process group: take the whole group.
  for (const pgid of groups) { try { process.kill(-pgid, signal); } catch { /* gone */ } }
  for (const pid of profilePids(PROFILE_ROOT)) { try { process.kill(pid, signal); } catch { /* gone */ } }
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => { killAll('SIGTERM'); setTimeout(() => { killAll('SIGKILL'); process.exit(130); }, 1500).unref(); });
}
process.on('exit', () => { killAll('SIGKILL'); rmSync(PROFILE_ROOT, { recursive: true, force: true }); });

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitForServer(base, server, ms = 15000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`server exited with code ${server.exitCode}`);
    try {
      const r = await fetch(base + '/fa/index.html');
      if (r.status < 500) return r.status;
    } catch (e) { last = e; }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server at ${base} did not answer within ${ms} ms: ${last}`);
}

async function main() {
  const testFiles = (process.env.TEST_FILES ? process.env.TEST_FILES.split(',') :
    readdirSync(HERE).filter((f) => f.endsWith('.test.mjs')).sort())
    .map((f) => path.join(HERE, path.basename(f)));
  if (!testFiles.length) throw new Error('no tests/browser/*.test.mjs found');

  let base = process.env.BASE_URL;
  if (!base) {
    if (!existsSync(path.join(SITE, 'fa', 'index.html'))) {
      console.error(`warning: ${path.relative(REPO, SITE)}/fa/index.html is missing; run \`bash build-scripts/build\` first`);
    }
    const serveScript = path.join(REPO, 'build-scripts', 'serve.mjs');
    if (!existsSync(serveScript)) throw new Error('build-scripts/serve.mjs is missing');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const server = track(spawn(process.execPath, [serveScript], {
      cwd: REPO,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'inherit'],
      detached: true,
    }));
    await waitForServer(base, server);
    console.log(`# static server ${base} (build-scripts/serve.mjs, pid ${server.pid})`);
  }

  const concurrency = process.env.BROWSER_TEST_CONCURRENCY || '2';
  // node:test's usual reporter on stdout, and every test's duration to a file for the end
  const durationsFile = path.join(PROFILE_ROOT, 'durations.jsonl');
  const reporters = ['--test-reporter', process.stdout.isTTY ? 'spec' : 'tap', '--test-reporter-destination', 'stdout',
    '--test-reporter', path.join(HERE, 'durations-reporter.mjs'), '--test-reporter-destination', durationsFile];
  const args = ['--test', `--test-concurrency=${concurrency}`, ...reporters, ...process.argv.slice(2), ...testFiles];
  const runner = track(spawn(process.execPath, args, {
    cwd: REPO,
    env: { ...process.env, BASE_URL: base, BROWSER_PROFILE_ROOT: PROFILE_ROOT },
    stdio: 'inherit',
    detached: true,
  }));
  const watchdog = setTimeout(() => {
    console.error(`# browser tests exceeded ${WATCHDOG_MS} ms: killing them`);
    killAll('SIGKILL');
  }, WATCHDOG_MS);
  const code = await new Promise((resolve) => runner.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))));
  clearTimeout(watchdog);
  printSlowest(durationsFile, 10);
  return code;
}

// The n slowest tests of the run, slowest first (where a faster suite would gain most).
function printSlowest(file, n) {
  if (!existsSync(file)) return;
  const runs = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  runs.sort((a, b) => b.ms - a.ms);
  console.log(`# the ${Math.min(n, runs.length)} slowest of ${runs.length} browser tests:`);
  for (const r of runs.slice(0, n)) {
    console.log(`#   ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${path.basename(r.file || '?')}  ${r.name}${r.failed ? '  (failed)' : ''}`);
  }
  // and per file (the sum of its tests: where moving checks to Node or sharing a page pays most)
  const perFile = new Map();
  for (const r of runs) {
    const f = path.basename(r.file || '?');
    const t = perFile.get(f) || { ms: 0, n: 0 };
    t.ms += r.ms; t.n += 1;
    perFile.set(f, t);
  }
  const files = [...perFile].sort((a, b) => b[1].ms - a[1].ms);
  const total = runs.reduce((s, r) => s + r.ms, 0);
  console.log(`# test time per file (sum of its tests; ${(total / 1000).toFixed(0)} s in all, run ${process.env.BROWSER_TEST_CONCURRENCY || 2} at a time):`);
  for (const [f, t] of files) console.log(`#   ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${String(t.n).padStart(3)} tests  ${f}`);
}

let code = 1;
try {
  code = await main();
} catch (e) {
  console.error(`# browser tests could not run: ${e.message}`);
  code = 1;
} finally {
  killAll('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  killAll('SIGKILL');
}
process.exit(code);
