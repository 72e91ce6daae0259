// Shared harness for the browser tests: Chromium launch (Debian's
// /usr/bin/chromium through playwright-core, fresh profile per test file),
// pages that record everything that must never happen (console errors, page
// errors, CSP violations, requests to another origin), axe-core and
// screenshots. BASE_URL is set by tests/browser/run.mjs.
import { chromium } from 'playwright-core';
import AxeBuilder from '@axe-core/playwright';
import { mkdtemp, rm, mkdir, writeFile } from 'node:fs/promises';
import { profilePids } from './profile-pids.mjs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { languageCodes } from '../../web/js/i18n/languages.mjs';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SCREENSHOT_DIR = path.join(REPO, 'build', 'screenshots');
export const BASE_URL = (process.env.BASE_URL || '').replace(/\/$/, '');
export const ORIGIN = BASE_URL ? new URL(BASE_URL).origin : '';
export const LANGS = languageCodes();

// Flags verified in /work/shared/TOOLCHAIN.md.
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function url(p) {
  if (!BASE_URL) throw new Error('BASE_URL is not set: run the tests through tests/browser/run.mjs');
  return BASE_URL + (p.startsWith('/') ? p : '/' + p);
}

// ------------------------------------------------------------------ browser
// One persistent context per test file, in a fresh temporary profile.
// Requests to any origin but the site's are recorded (context-wide, so module
// workers are covered) and aborted: the tests never reach the network.
// `origin` (default: BASE_URL's) is the site's origin for that browser.
export async function launch({ viewport = { width: 1280, height: 900 }, origin = ORIGIN } = {}) {
  const userDataDir = await mkdtemp(path.join(process.env.BROWSER_PROFILE_ROOT || tmpdir(), 'attn-browser-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    acceptDownloads: true,
    timezoneId: 'UTC',
  });
  const foreign = [];
  context.on('request', (req) => {
    if (isForeign(req.url(), origin)) foreign.push(`${req.method()} ${req.url()}`);
  });
  await context.route('**/*', (route) => {
    if (isForeign(route.request().url(), origin)) return route.abort('blockedbyclient');
    return route.continue();
  });
  // CSP violations surface in the page as `securitypolicyviolation` events;
  // report them to node through a binding (bindings are not subject to CSP).
  const csp = [];
  await context.exposeBinding('__testReportCsp', (source, v) => {
    csp.push({ page: source.page?.url(), ...v });
  });
  await context.addInitScript(() => {
    const report = (e) => {
      try {
        // eslint-disable-next-line no-undef
        __testReportCsp({ directive: e.violatedDirective || e.effectiveDirective, blocked: e.blockedURI,
          source: e.sourceFile, line: e.lineNumber, sample: e.sample });
      } catch { /* binding not ready: the console message still reports it */ }
    };
    document.addEventListener('securitypolicyviolation', report, true);
  });
  for (const p of context.pages()) await p.close().catch(() => {});
  const covered = new Set();   // pages whose JS coverage is still to be written (JS_COVERAGE_DIR)
  return {
    context,
    foreignRequests: foreign,
    cspViolations: csp,
    covered,
    // A close that does not finish in CLOSE_MS stops this profile's Chromium by pid: a test file
    // whose tests had all ended stayed alive 30 min in its after hook, holding the whole suite
    // until the runner's watchdog (a clean-clone run, 2026-12-06).
    async close() {
      await flushCoverage(covered);
      await closeProfile(context, userDataDir);
    },
  };
}

const CLOSE_MS = 60000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref());
// Closes a persistent context and removes its profile; stops its Chromium by pid when the close
// does not finish in CLOSE_MS (phone.mjs closes its phones the same way).
export async function closeProfile(context, userDataDir) {
  const closed = await Promise.race([context.close().then(() => true, () => true), sleep(CLOSE_MS).then(() => false)]);
  if (!closed) {
    const pids = profilePids(userDataDir);
    console.error(`# Chromium of ${userDataDir} did not close within ${CLOSE_MS} ms: killing ${pids.join(' ') || 'nothing'}`);
    for (const pid of pids) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  }
  await rm(userDataDir, { recursive: true, force: true }).catch(() => {});
}
export function isForeign(u, origin = ORIGIN) {
  if (u.startsWith('data:') || u.startsWith('about:')) return false;
  try {
    return new URL(u).origin !== origin;
  } catch {
    return true;
  }
}

// A page with recorders. `issues()` returns what went wrong since it opened:
// console errors (page and workers), uncaught page errors, CSP violations
// (events and console messages) and foreign requests.
export async function newPage(b, { viewport } = {}) {
  const page = await b.context.newPage();
  // A hang limit, not a speed check: every wait is for a state the page announces, and on a
  // loaded 2-core machine a recompute behind a mounting lesson can take seconds.
  page.setDefaultTimeout(Number(process.env.BROWSER_ACTION_TIMEOUT_MS || 60000));
  if (viewport) await page.setViewportSize(viewport);
  const log = { consoleErrors: [], pageErrors: [], cspMessages: [], allConsole: [] };
  const cspStart = b.cspViolations.length;
  const foreignStart = b.foreignRequests.length;
  page.on('console', (msg) => {
    const text = msg.text();
    log.allConsole.push(`[${msg.type()}] ${text}`);
    if (msg.type() === 'error') log.consoleErrors.push(`${text} @ ${msg.location()?.url || ''}`);
    if (/content security policy/i.test(text)) log.cspMessages.push(text);
  });
  page.on('pageerror', (err) => log.pageErrors.push(String(err?.stack || err)));
  page.on('worker', (w) => {
    w.on('console', (msg) => {
      const text = msg.text();
      if (/content security policy/i.test(text)) log.cspMessages.push(`[worker] ${text}`);
    });
  });
  page.issues = () => ({
    consoleErrors: [...log.consoleErrors],
    pageErrors: [...log.pageErrors],
    cspViolations: b.cspViolations.slice(cspStart),
    cspMessages: [...new Set(log.cspMessages)],
    foreignRequests: b.foreignRequests.slice(foreignStart),
  });
  page.consoleLog = log.allConsole;
  if (process.env.JS_COVERAGE_DIR && b.covered) await startCoverage(page, b.covered);
  return page;
}

// ------------------------------------------------------------------ coverage
// build-scripts/coverage sets JS_COVERAGE_DIR: each page's V8 coverage of the site's own
// scripts (main thread only: Playwright does not cover workers) is written there as
// NODE_V8_COVERAGE writes Node's, for build-scripts/coverage-report.mjs to merge.
async function startCoverage(page, covered) {
  await page.coverage.startJSCoverage({ resetOnNavigation: false });
  covered.add(page);
  const close = page.close.bind(page);
  page.close = async (options) => { await writeCoverage(page, covered); return close(options); };
}

/** Writes the coverage of every page of `covered` not closed yet (a browser's close()). */
export async function flushCoverage(covered) {
  for (const page of [...covered]) await writeCoverage(page, covered);
}

async function writeCoverage(page, covered) {
  if (!covered.delete(page)) return;
  const entries = await page.coverage.stopJSCoverage().catch(() => []);
  const result = entries.filter((e) => /\/js\/.*\.m?js$/.test(new URL(e.url, 'http://x').pathname))
    .map(({ url: u, functions }) => ({ url: u, functions }));
  await mkdir(process.env.JS_COVERAGE_DIR, { recursive: true });
  const file = path.join(process.env.JS_COVERAGE_DIR, `browser-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.json`);
  await writeFile(file, JSON.stringify({ result }));
}

// Throw (with everything that was recorded) when a page had any issue.
export function assertNoIssues(page, { allowConsole = [] } = {}) {
  const i = page.issues();
  i.consoleErrors = i.consoleErrors.filter((t) => !allowConsole.some((re) => re.test(t)));
  const bad = Object.entries(i).filter(([, v]) => v.length);
  if (bad.length) {
    throw new Error(`page ${page.url()} had issues:\n` + JSON.stringify(Object.fromEntries(bad), null, 2));
  }
}

// ------------------------------------------------------------------ axe
export async function axeViolations(page, { include, exclude = [] } = {}) {
  // Only violations are read: with axe.run in the page, its reporter then builds selectors and
  // source only for them and one node of each passing rule. AxeBuilder's default (runPartial in
  // each frame, finishRun in a blank page) serialises every checked node first, whatever
  // resultTypes says: on the lesson (27,400 elements, every fold open) runPartial took 158 s and
  // 21 MB of JSON where axe.run took 66 s, same rules, same page (engine/bench/axe-profile.mjs
  // --partial, 2026-12-07). That mode exists for cross-origin frames; the site has no frame, so
  // a page with one still gets it.
  let builder = new AxeBuilder({ page }).options({ resultTypes: ['violations'] });
  if (page.frames().length === 1) builder = builder.setLegacyMode(true);
  if (include) builder = builder.include(include);
  for (const sel of exclude) builder = builder.exclude(sel);
  const res = await builder.analyze();
  return res.violations;
}

export function formatAxe(violations) {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n` +
    v.nodes.slice(0, 5).map((n) => `    ${n.target.join(' ')}: ${n.failureSummary?.split('\n').join(' | ')}`).join('\n'))
    .join('\n');
}

// ------------------------------------------------------------------ screenshots
export async function screenshot(page, name) {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  // A full-page capture of the 20,000-px lesson is the slowest step on a loaded machine:
  // give it more than the 10 s action timeout (it is a picture, not a timing check).
  await page.screenshot({ path: file, fullPage: true, timeout: 120000 });
  return file;
}

// A picture of one element (a chapter) for people to look at. Playwright's element screenshot
// first waits for the element's box to hold still for two frames: kvcache.test's waited 44 s for
// that under a busy loop at load 16–19 and failed, though nothing it checks had gone wrong. A
// picture never fails a test: when the element does not hold still in 30 s, the screen around
// its start is taken instead, and the log says so. (A clip of a full-page capture is no
// substitute: the capture makes the viewport as tall as the page, the sections not built yet
// hold 100vh each, and the clip then showed the chapter above.)
export async function elementShot(locator, file) {
  await mkdir(path.dirname(file), { recursive: true });
  try {
    await locator.screenshot({ path: file, timeout: 30000 });
  } catch (e) {
    if (e?.name !== 'TimeoutError') throw e;
    await locator.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await locator.page().screenshot({ path: file, timeout: 120000 });
    console.log(`# ${path.basename(file)}: the element did not hold still for its picture; the screen at its start was taken`);
  }
  return file;
}

// ------------------------------------------------------------------ numbers
// Read numbers the way a person sees them: Persian, Arabic-Indic or Latin
// digits, with ٫ / . / , as decimal separator and ٬ as thousands separator.
const FA = '۰۱۲۳۴۵۶۷۸۹';
const AR = '٠١٢٣٤٥٦٧٨٩';
export function toLatinDigits(s) {
  return String(s).replace(/[۰-۹]/g, (d) => String(FA.indexOf(d)))
    .replace(/[٠-٩]/g, (d) => String(AR.indexOf(d)));
}

// Parse the first number in a visible string. Returns NaN when there is none.
export function parseVisibleNumber(s) {
  const t = toLatinDigits(s).replace(/[\u200e\u200f\u061c\u2066-\u2069]/g, '')
    .replace(/\u066c/g, '').replace(/\u066b/g, '.').replace(/\u2212/g, '-');
  const m = t.match(/-?\d+(?:[.,]\d+)?(?:e[-+]?\d+)?/i);
  if (!m) return NaN;
  return Number(m[0].replace(',', '.'));
}

export function digitScript(s) {
  const str = String(s);
  return {
    persian: /[۰-۹]/.test(str),
    arabic: /[٠-٩]/.test(str),
    latin: /[0-9]/.test(str),
  };
}

// Normalise invisible bidi marks and percent variants (٪ U+066A, % and
// the Arabic percent sign with ALM) so comparisons read like a person does.
export function normaliseText(s) {
  return String(s).replace(/[\u200e\u200f\u061c\u2066-\u2069\u00a0\u202f]/g, '')
    .replace(/\s+/g, ' ').replace(/%/g, '٪').trim();
}

export const byTestId = (root, id) => root.locator(`[data-testid="${id}"]`);

/** Wait until the page's URL matches `re`: sliders write the URL once they rest (state.mjs setLater). */
export async function waitForUrl(page, re, what = String(re)) {
  try {
    await page.waitForFunction(([src, flags]) => new RegExp(src, flags).test(location.href), [re.source, re.flags]);
  } catch (e) {
    throw new Error(`URL never matched ${what}: ${page.url()} (${e.message.split('\n')[0]})`);
  }
}

/** Type into a text field the way a learner commits a value: fill it, then press Enter. */
export async function typeInto(page, testid, text) {
  const input = byTestId(page, testid);
  await input.fill(text);
  await input.press('Enter');
}

// Read a heatmap's data table (the keyboard-reachable <table> the heatmap
// widget renders) as a matrix of numbers, as they are displayed.
export async function readTable(locator) {
  return locator.evaluate((el) => {
    const table = el.tagName === 'TABLE' ? el : el.querySelector('table');
    if (!table) return null;
    const rows = [...table.querySelectorAll('tbody tr')];
    return rows.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim()));
  }).then((m) => m && m.map((r) => r.map(parseVisibleNumber)));
}
