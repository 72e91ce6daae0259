// A phone for the browser tests: Chromium with Playwright's mobile emulation
// (isMobile: meta viewport honoured, touch events, device scale 2) at a given
// width. Same flags, fresh profile and clean-up as helpers.mjs launch(); the
// object it returns works with newPage() / openLesson().
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './helpers.mjs';

export const PHONE_WIDTHS = [360, 390];

export async function launchPhone(width, { height = 780 } = {}) {
  const userDataDir = await mkdtemp(path.join(process.env.BROWSER_PROFILE_ROOT || tmpdir(), 'attn-phone-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width, height },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
    timezoneId: 'UTC',
  });
  for (const p of context.pages()) await p.close().catch(() => {});
  return {
    context,
    width,
    foreignRequests: [],
    cspViolations: [],
    async close() {
      await context.close().catch(() => {});
      await rm(userDataDir, { recursive: true, force: true }).catch(() => {});
    },
  };
}

/** document.documentElement.scrollWidth minus the device width (0 when nothing sticks out). */
export function overflowPx(page, width) {
  return page.evaluate((w) => document.documentElement.scrollWidth - w, width);
}
