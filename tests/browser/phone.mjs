// A phone for the browser tests: Chromium with a mobile, touch viewport (isMobile: meta
// viewport honoured, touch events, device scale 2), otherwise the same harness as
// helpers.launch (fresh profile, requests to other origins recorded and aborted).
// Widths 360 and 390 CSS px are the phones issue 12 names.
import { chromium } from 'playwright-core';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, ORIGIN, isForeign, flushCoverage, closeProfile } from './helpers.mjs';

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
  const covered = new Set();   // helpers.newPage: pages whose JS coverage is to be written
  return {
    context,
    foreignRequests: foreign,
    cspViolations: [],
    covered,
    width,
    async close() {
      await flushCoverage(covered);
      await closeProfile(context, userDataDir);
    },
  };
}

/** document.documentElement.scrollWidth minus the device width (0 when nothing sticks out). */
export function overflowPx(page, width) {
  return page.evaluate((w) => document.documentElement.scrollWidth - w, width);
}

// How wide the page is, and (when too wide) which elements stick out at the device width.
export async function pageOverflow(page, width) {
  return page.evaluate((W) => {
    const sw = document.documentElement.scrollWidth;
    if (sw <= W) return { sw, offenders: [] };
    // Hold the root at the device width so the layout is the phone's, then find the
    // innermost visible elements reaching past either edge and not inside a scroller.
    const root = document.documentElement;
    const old = root.style.width;
    root.style.width = `${W}px`;
    const scrolls = (el) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const ox = getComputedStyle(a).overflowX;
        if (ox === 'auto' || ox === 'scroll' || ox === 'hidden' || ox === 'clip') return true;
      }
      return false;
    };
    const box = root.getBoundingClientRect();   // where the phone's width lies (RTL: at the right)
    const out = [...document.body.querySelectorAll('*')].filter((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1) && !scrolls(el);
    });
    const inner = out.filter((el) => !out.some((o) => o !== el && el.contains(o)));
    const describe = (el) => {
      const r = el.getBoundingClientRect();
      const tid = el.closest('[data-testid]')?.dataset.testid;
      return `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : ''}`
        + ` in [${tid}] x=${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)}: "${el.textContent.trim().slice(0, 70)}"`;
    };
    const offenders = inner.slice(0, 8).map(describe);
    root.style.width = old;
    return { sw, offenders };
  }, width);
}

// Records each step after which the page is wider than the phone, at each phone width (the
// same page is resized, so the blocks are used once for both widths); an element that stays
// on the page keeps it wide, so each offender is named once, at the step that made it.
// The widths are measured starting from the one the page has (360, 390, then 390, 360, …):
// one resize a step instead of two, each a layout of the whole page.
export function overflowChecker(page, lang, widths = PHONE_WIDTHS) {
  const problems = [];
  const named = new Set();
  return {
    problems,
    async check(step) {
      const now = page.viewportSize()?.width;
      for (const width of widths.includes(now) ? [now, ...widths.filter((w) => w !== now)] : widths) {
        if (width !== page.viewportSize()?.width) await page.setViewportSize({ width, height: 780 });
        const o = await pageOverflow(page, width);
        if (o.sw <= width) continue;
        const fresh = o.offenders.filter((d) => !named.has(d));
        fresh.forEach((d) => named.add(d));
        if (fresh.length || !problems.length) {
          problems.push(`${lang} ${width}px after ${step}: page is ${o.sw} px wide\n    ${fresh.join('\n    ')}`);
        }
      }
    },
  };
}
