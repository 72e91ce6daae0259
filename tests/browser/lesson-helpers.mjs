// Lesson-page helpers shared by the lesson, a11y and screenshot tests.
import assert from 'node:assert/strict';
import { newPage, url, byTestId, readTable } from './helpers.mjs';
import { SECTIONS } from '../../web/js/lesson/lesson-sections.mjs';

// Every <section> of the lesson page (web/js/lesson/lesson-sections.mjs), sorted (the tests compare
// sorted id lists); page order: SECTIONS.
export const SECTION_IDS = SECTIONS.map((s) => s.id).sort();

// Digits a person expects in each edition.
export const DIGITS = {
  fa: { re: /[۰-۹]/, other: /[٠-٩0-9]/, name: 'Persian' },
  ar: { re: /[٠-٩]/, other: /[۰-۹0-9]/, name: 'Arabic-Indic' },
};

// Open a lesson page, ask it to build every section (sections mount as the reader nears them,
// pages/lazy-mount.mjs; the tests read all of them) and wait until web/js/pages/lesson.mjs
// says every section mounted (html[data-lesson]) and the engine answered (html[data-engine]).
// A query whose #hash names a section (the tests of one section) waits for that section alone,
// as a reader following a shared link gets it: building all seventeen (chapter 13 loads a model
// and scores it) cost each such test seconds and most of the suite's CPU. { all: true } builds
// every section anyway.
export async function openLesson(b, lang, query = '', { viewport, all, timeout } = {}) {
  const page = await newPage(b, { viewport });
  await page.goto(url(`/${lang}/index.html${query}`), { waitUntil: 'load' });
  await waitForQuery(page, query, { all, timeout });
  return page;
}

// What openLesson waits for once a page is loaded with `query`: the section its #hash names,
// or (no such hash, or { all: true }) every section. For files that open pages their own way.
export async function waitForQuery(page, query, { all = false, timeout = 90000 } = {}) {
  const section = SECTIONS.find((s) => query.endsWith(`#${s.id}`))?.id;
  if (section && !all) await waitSection(page, section, timeout);
  else await waitLesson(page, timeout);
}

// Wait until the section `id` has mounted (data-state, set by pages/lazy-mount.mjs and mountPart)
// and the engine answered; fail with what the page logged when it does not become ready.
export async function waitSection(page, id, timeout = 60000) {
  try {
    await page.waitForFunction((id) => {
      const s = document.getElementById(id)?.dataset.state, e = document.documentElement.dataset.engine;
      return s && s !== 'pending' && s !== 'loading' && e && e !== 'loading';
    }, id, { timeout });
  } catch (e) {
    const d = await page.evaluate((id) => ({ section: document.getElementById(id)?.dataset.state, engine: document.documentElement.dataset.engine }), id).catch(() => ({}));
    throw new Error(`${page.url()}: section ${id} is ${d.section}, engine ${d.engine} after ${timeout} ms; page issues: ${JSON.stringify(page.issues?.() ?? {}, null, 1)}`);
  }
  const d = await page.evaluate((id) => ({ section: document.getElementById(id).dataset.state, engine: document.documentElement.dataset.engine }), id);
  assert.equal(d.section, 'ready', `section ${id} is ${d.section}; page issues: ${JSON.stringify(page.issues?.() ?? {}, null, 1)}`);
  assert.equal(d.engine, 'ready', `html[data-engine] is ${d.engine}`);
}

// 60 s: on the shared 2-core machine at load average ~50 the lesson (old or new, measured
// side by side: 12–18 s each) sometimes mounts just after 20 s; this is a hang detector,
// not a speed check (the page budget is measured by engine/bench/page-metrics.mjs).
// { all: false } waits without asking for the sections the reader has not neared (the
// lazy-mount tests, which scroll to them themselves).
export async function waitLesson(page, timeout = 90000, { all = true } = {}) {
  return waitPage(page, 'lesson', timeout, { all });
}

// What printing or finding in the page does: build every section (lesson) or block
// (practice) now.
export async function mountAll(page, timeout = 60000) {
  await page.waitForFunction(() => (window.__lesson || window.__practice)?.mountAll, null, { timeout })
    .catch(() => {});   // a page that failed to start: waitPage reports what it logged
  await page.evaluate(() => { (window.__lesson || window.__practice)?.mountAll?.(); });
}

// Wait for html[data-<kind>] (lesson | practice) and html[data-engine] to settle;
// fail with everything the page logged when they do not become "ready". The page is first
// asked to build every section or block (unless { all: false }).
export async function waitPage(page, kind, timeout = 90000, { all = true } = {}) {
  if (all) await mountAll(page, timeout);
  const why = () => JSON.stringify(page.issues ? page.issues() : {}, null, 1);
  try {
    await page.waitForFunction((kind) => {
      const d = document.documentElement.dataset;
      return d[kind] && d[kind] !== 'loading' && d.engine && d.engine !== 'loading';
    }, kind, { timeout });
  } catch (e) {
    const d = await page.evaluate(() => ({ ...document.documentElement.dataset })).catch(() => ({}));
    throw new Error(`${page.url()}: html[data-${kind}]=${d[kind]} data-engine=${d.engine} after ${timeout} ms; page issues: ${why()}`);
  }
  const d = await page.evaluate(() => ({ ...document.documentElement.dataset }));
  assert.equal(d[kind], 'ready', `html[data-${kind}] is ${d[kind]}; page issues: ${why()}`);
  assert.equal(d.engine, 'ready', `html[data-engine] is ${d.engine}; page issues: ${why()}`);
}

export async function openPractice(b, lang, query = '', { viewport } = {}) {
  const page = await newPage(b, { viewport });
  await page.goto(url(`/${lang}/practice.html${query}`), { waitUntil: 'load' });
  await waitPage(page, 'practice');
  return page;
}

export async function sectionStates(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('main section[id]')]
    .map((s) => [s.id, s.dataset.state])));
}

// Read a heatmap (by its data-testid) through its data table, as numbers.
// The table lives in a <details>; open it first, the way a person would.
export async function heatmapValues(page, testid) {
  const hm = byTestId(page, testid);
  await hm.waitFor({ state: 'attached' });
  const det = hm.locator('details').first();
  if (await det.count()) {
    if (!(await det.evaluate((d) => d.open))) await det.locator('summary').first().click();
  }
  const table = byTestId(page, `${testid}-table`);
  await table.waitFor({ state: 'visible' });
  return readTable(table);
}

export async function heatmapTexts(page, testid) {
  return byTestId(page, `${testid}-table`).evaluate((t) =>
    [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
}

// Wait until fn() (async, returns a JSON-able value) differs from `before`, and return it.
// For a recompute a section announces no state for; the limit only catches a hang.
export async function waitChange(fn, before, { timeout = 60000, interval = 100 } = {}) {
  const start = Date.now();
  const b = JSON.stringify(before);
  for (;;) {
    const cur = await fn();
    if (JSON.stringify(cur) !== b) return cur;
    if (Date.now() - start > timeout) throw new Error(`no change within ${timeout} ms from ${b.slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

// Compute in the page with the engine module itself (not the lesson's worker):
// the same numbers the lesson must show. Returns plain arrays.
export async function engineWorkedExample(page, { causal = false } = {}) {
  return page.evaluate(async ({ causal }) => {
    const { loadEngine } = await import('/js/engine.mjs');
    const { DEFAULT, computeExample } = await import('/js/lesson/worked-example.mjs');
    const engine = await loadEngine();
    const r = await computeExample(engine, { ...DEFAULT, causal });
    const plain = (m) => ({ rows: m.rows, cols: m.cols, data: Array.from(m.data) });
    return { scores: plain(r.scores), weights: plain(r.weights), out: plain(r.out), Q: plain(r.Q), K: plain(r.K) };
  }, { causal });
}

export function intlFormat(lang, latin, x, opts) {
  const loc = lang === 'ar' ? (latin ? 'ar-u-nu-latn' : 'ar-u-nu-arab') : (latin ? 'fa-u-nu-latn' : 'fa');
  return new Intl.NumberFormat(loc, opts).format(x);
}
