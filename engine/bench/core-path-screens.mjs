#!/usr/bin/env node
// How long the lesson is on a phone: phone screens (390 × 844 CSS px, touch, device scale 3,
// the phone walkthrough's device) per section, for the whole lesson and for its core path
// (the sections marked `core` in web/js/lesson/lesson-sections.mjs; before that flag existed, pass
// --core s1,s2,s3,s4,s5,s6,summary). A measuring script, not a test.
//
//   node engine/bench/core-path-screens.mjs [--langs fa,ar] [--core ids] [--json FILE]
//   SITE_DIR=/other/site node engine/bench/core-path-screens.mjs    (default build/site)
//
// How: build-scripts/serve.mjs on a free port; each edition opens in a fresh Chromium profile,
// every section is mounted (window.__lesson.mountAll(), as printing does) with every fold in
// its default state (closed unless the URL opens it), and the page waits for
// html[data-lesson]="ready". A section's screens = its height (getBoundingClientRect) ÷ 844.
// The core path's screens = the sum over the core sections; the whole lesson's = the
// document's scroll height ÷ 844 (header and contents included).
import { chromium } from 'playwright-core';
import { serveSite } from './serve-site.mjs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SECTIONS } from '../../web/js/lesson/lesson-sections.mjs';

const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
const langs = arg('langs', 'fa,ar').split(',');
const flagged = SECTIONS.filter((s) => s.core).map((s) => s.id);
const core = arg('core', flagged.join(',')).split(',').filter(Boolean);
if (!core.length) { console.error('no core sections: pass --core s1,s2,…'); process.exit(2); }
const W = 390, H = 844;

const { base, stop: stopServer } = await serveSite();

const results = {};
try {
  for (const lang of langs) {
    const dir = await mkdtemp(path.join(tmpdir(), 'attn-screens-'));
    const context = await chromium.launchPersistentContext(dir, {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true,
      args: ['--no-sandbox', '--disable-gpu'], viewport: { width: W, height: H }, deviceScaleFactor: 3,
      isMobile: true, hasTouch: true,
    });
    try {
      const page = context.pages()[0] || await context.newPage();
      await page.goto(`${base}/${lang}/`, { waitUntil: 'load' });
      await page.waitForFunction(() => window.__lesson?.mountAll, null, { timeout: 60000 });
      await page.evaluate(() => window.__lesson.mountAll());
      await page.waitForFunction(() => document.documentElement.dataset.lesson === 'ready', null, { timeout: 120000 });
      await page.evaluate(() => document.fonts.ready);
      const m = await page.evaluate((ids) => ({
        total: document.documentElement.scrollHeight,
        width: document.documentElement.scrollWidth,
        sections: Object.fromEntries(ids.map((id) => [id, document.getElementById(id)?.getBoundingClientRect().height ?? 0])),
      }), SECTIONS.map((s) => s.id));
      const screens = (px) => Math.round((px / H) * 10) / 10;
      const perSection = Object.fromEntries(Object.entries(m.sections).map(([id, px]) => [id, screens(px)]));
      const corePx = core.reduce((a, id) => a + (m.sections[id] || 0), 0);
      results[lang] = { whole: screens(m.total), core: screens(corePx), coreSections: core, perSection, scrollWidth: m.width };
    } finally {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
} finally {
  stopServer();
}

for (const [lang, r] of Object.entries(results)) {
  console.log(`${lang}: core path (${r.coreSections.join(' ')}) ${r.core} screens of ${H} px; whole lesson ${r.whole}; scrollWidth ${r.scrollWidth}`);
  console.log(`   ${Object.entries(r.perSection).map(([id, s]) => `${id} ${s}`).join(', ')}`);
}
const json = arg('json', null);
if (json) await writeFile(json, JSON.stringify(results, null, 2));
