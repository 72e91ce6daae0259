#!/usr/bin/env node
// Where axe-core's time goes on the lesson and practice pages, as tests/browser/a11y-pages.mjs
// runs it (every section or block built, every <details> open, only violations reported).
// A measuring script, not a test: it prints times and asserts nothing.
//
//   node engine/bench/axe-profile.mjs [--langs fa,ar] [--kinds lesson,practice]
//        [--sections] [--exclude 'css,css' ...] [--include 'css,css'] [--rules id,id] [--count]
//        [--partial] [--mark] [--top 25]
//
// For each page: the element count (whole page and per main > section[id]), one axe.run over the
// page (the test's excludes by default) with axe's performanceTimer, and the slowest rules
// (rule_<id> measures: gather + matches + checks). --sections adds one axe.run per section
// (include: that section), with the element count beside its time and its slowest rules.
// --exclude, given n times, makes n runs on the same page (default: the test's excludes);
// --rules runs only those rules; --count reports the nodes each rule checked; --partial times
// axe.runPartial (what @axe-core/playwright's analyze() ran by default) and the size of its JSON;
// --mark marks and leaves out what the test leaves out (tests/browser/a11y-repeats.mjs).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { serveSite } from './serve-site.mjs';

const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
const langs = arg('langs', 'fa,ar').split(',');
const kinds = arg('kinds', 'lesson,practice').split(',');
const top = Number(arg('top', '25'));
const perSection = process.argv.includes('--sections');
// --mark: what the test does (a11y-repeats.mjs: mark exact repeats, exclude them); without it,
// what it did before (chapter 13's 64 × 64 map's table left out).
const mark = process.argv.includes('--mark');
const TEST_EXCLUDE = mark ? { lesson: [], practice: [] } : { lesson: ['[data-testid="model-map"] .heatmap-table'], practice: [] };
const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);

const { base, stop } = await serveSite();
process.env.BASE_URL = base;
// helpers.mjs reads BASE_URL when it is first imported.
const { launch } = await import('../../tests/browser/helpers.mjs');
const { openLesson, openPractice } = await import('../../tests/browser/lesson-helpers.mjs');
const { markRepeats, SAME } = await import('../../tests/browser/a11y-repeats.mjs');
const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const OPEN = { lesson: openLesson, practice: openPractice };

const b = await launch();
try {
  for (const kind of kinds) {
    for (const lang of langs) {
      const t0 = Date.now();
      const page = await OPEN[kind](b, lang, '', { viewport: { width: 1280, height: 900 } });
      const tOpen = Date.now() - t0;
      await page.evaluate(() => Promise.all([...document.querySelectorAll('details:not([open])')].map((d) =>
        new Promise((resolve) => { d.addEventListener('toggle', resolve, { once: true }); d.open = true; }))));
      if (mark) {
        console.log(`marked as repeats: ${JSON.stringify(await markRepeats(page))}`);
        for (const k of Object.keys(TEST_EXCLUDE)) if (!TEST_EXCLUDE[k].includes(SAME)) TEST_EXCLUDE[k].push(SAME);
      }
      await page.evaluate(axeSource);
      const counts = await page.evaluate(() => ({
        all: document.querySelectorAll('*').length,
        sections: [...document.querySelectorAll('main > section[id]')].map((s) => [s.id, s.querySelectorAll('*').length]),
      }));
      console.log(`\n== ${kind} ${lang}: opened in ${tOpen} ms; ${counts.all} elements`);
      const include = arg('include') ? list(arg('include')) : null;
      // --exclude may be given several times: one run per value, on the same page.
      const excludes = process.argv.flatMap((a, i) => (a === '--exclude' ? [list(process.argv[i + 1])] : []));
      const rulesOnly = arg('rules') ? list(arg('rules')) : null;
      // count: also report how many nodes each rule checked (passes + incomplete + violations).
      const run = (ctx, perf, count = false) => page.evaluate(async ({ ctx, perf, rulesOnly, count }) => {
        performance.clearMarks(); performance.clearMeasures();
        const t = performance.now();
        const r = await window.axe.run(ctx, { resultTypes: count ? ['violations', 'passes', 'incomplete'] : ['violations'],
          performanceTimer: perf, ...(rulesOnly ? { runOnly: { type: 'rule', values: rulesOnly } } : {}) });
        const ms = performance.now() - t;
        const n = {};
        if (count) for (const k of ['violations', 'passes', 'incomplete']) for (const x of r[k]) n[x.id] = (n[x.id] || 0) + x.nodes.length;
        const rules = perf ? performance.getEntriesByType('measure').filter((m) => /^rule_[^#]+$/.test(m.name))
          .map((m) => [m.name.slice(5), Math.round(m.duration), n[m.name.slice(5)] ?? '']) : [];
        return { ms: Math.round(ms), violations: r.violations.map((v) => `${v.id}×${v.nodes.length}`), rules };
      }, { ctx, perf, rulesOnly, count });
      const count = process.argv.includes('--count');
      for (const exclude of excludes.length ? excludes : [TEST_EXCLUDE[kind]]) {
        const ctx = { include: include ? include.map((s) => [s]) : [['html']], exclude: exclude.map((s) => [s]) };
        const whole = await run(ctx, true, count);
        console.log(`axe.run${rulesOnly ? ` ${rulesOnly}` : ''} (exclude ${JSON.stringify(exclude)}${include ? `, include ${JSON.stringify(include)}` : ''}): ${whole.ms} ms; violations: ${whole.violations.join(' ') || 'none'}`);
        whole.rules.sort((a, b2) => b2[1] - a[1]);
        const sum = whole.rules.reduce((a, [, ms]) => a + ms, 0);
        console.log(`rules: ${whole.rules.length}, sum of rule measures ${sum} ms; slowest (ms${count ? ', nodes' : ''}):`);
        for (const [id, ms, n] of whole.rules.slice(0, top)) console.log(`  ${String(ms).padStart(7)} ms  ${id} ${n}`);
      }
      const ctx = { include: [['html']], exclude: TEST_EXCLUDE[kind].map((s) => [s]) };
      if (process.argv.includes('--partial')) {
        // What @axe-core/playwright's AxeBuilder.analyze() does: axe.runPartial in the page (every
        // checked node serialised: selector, source, ancestry), the JSON to Node and into a blank page.
        const p = await page.evaluate(async (ctx) => {
          const t = performance.now();
          const r = await window.axe.runPartial(ctx, { resultTypes: ['violations'] });
          const ms = performance.now() - t;
          const json = JSON.stringify(r);
          return { ms: Math.round(ms), bytes: json.length, nodes: r.results.reduce((a, x) => a + (x.nodes?.length || 0), 0) };
        }, ctx);
        console.log(`axe.runPartial whole page: ${p.ms} ms; ${p.nodes} node results; JSON ${(p.bytes / 1e6).toFixed(1)} MB`);
      }
      if (perSection) {
        console.log('per section (include one section; elements, ms):');
        for (const [id, n] of counts.sections) {
          const r = await run({ include: [[`#${id}`]], exclude: TEST_EXCLUDE[kind].map((s) => [s]) }, true, count);
          const rules = r.rules.sort((a, b2) => b2[1] - a[1]).slice(0, 3).map(([rid, ms, k]) => `${rid} ${ms} ms${count ? ` ${k} nodes` : ''}`).join(', ');
          console.log(`  ${id.padEnd(14)} ${String(n).padStart(6)} el ${String(r.ms).padStart(7)} ms  ${rules}  ${r.violations.join(' ')}`);
        }
      }
      await page.close();
    }
  }
} finally {
  await b.close();
  stop();
}
