// A phone for the browser tests: Chromium with a mobile, touch viewport (isMobile: meta
// viewport honoured, touch events, device scale 2), otherwise the same harness as
// helpers.launch (fresh profile, requests to other origins recorded and aborted).
// Widths 360 and 390 CSS px are the phones issue 12 names.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, ORIGIN, isForeign } from './helpers.mjs';

export const PHONE_WIDTHS = [360, 390];

export async function launchPhone({ width = 360, height = 780 } = {}) {
  const userDataDir = await mkdtemp(path.join(process.env.BROWSER_PROFILE_ROOT || tmpdir(), 'attn-phone-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width, height },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    timezoneId: 'UTC',
  });
  const foreign = [];
  context.on('request', (req) => { if (isForeign(req.url(), ORIGIN)) foreign.push(`${req.method()} ${req.url()}`); });
  await context.route('**/*', (route) => (isForeign(route.request().url(), ORIGIN)
    ? route.abort('blockedbyclient') : route.continue()));
  for (const p of context.pages()) await p.close().catch(() => {});
  return {
    context,
    foreignRequests: foreign,
    cspViolations: [],
    width,
    async close() {
      await context.close().catch(() => {});
      await rm(userDataDir, { recursive: true, force: true }).catch(() => {});
    },
  };
}

// How far the page scrolls sideways: the document's width against the device's.
export async function pageOverflow(page, width) {
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  return sw - width;
}

/** document.documentElement.scrollWidth minus the device width (0 when nothing sticks out). */
export function overflowPx(page, width) {
  return page.evaluate((w) => document.documentElement.scrollWidth - w, width);
}
