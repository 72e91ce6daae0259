// Entry point of fa/index.html and ar/index.html.
// Loads the settings and the prose, starts the engine worker, keeps the language
// switch pointing at the same place in the other edition, and mounts the
// sections of the one list web/js/lesson/lesson-sections.mjs (each in its own try/catch: one
// failing section leaves the others) as the reader approaches them (pages/lazy-mount.mjs:
// the first screen and what the URL's #hash or `sN.*` state points into at once, the rest
// when scrolled near). A section that relies on published work but does
// not cite it in its own text gets a line "sources for this section" with links into the
// sources list (references.mjs). A section whose text has a `<id>.takeaway` key ends with
// a small boxed "in short" note (issue 12): a new section needs only its key, not code.
//
// Test hooks (on <html>): data-engine="loading|ready|error", data-lesson="ready"
// once every section has mounted or failed, data-first-screen="ready" once the sections
// mounted on load have (a section mounts when the reader nears it, so
// tests that need the whole lesson call window.__lesson.mountAll() first, as printing does);
// each <section> gets data-state="pending|loading|ready|error" (pending: not yet started,
// lazy-mount.mjs). window.__lesson = {engine, ctx(sectionId), mountAll()}.

import { ltrExpr, t, has, tNode } from '../i18n/i18n.mjs';
import { SECTION_REFS, cite } from '../lesson/references.mjs';
import { scoped, currentPlace } from '../state.mjs';
import { setupWhereBar } from './where-bar.mjs';
import { spokenText } from '../dom.mjs';
import { addCopyLinks } from './copy-link.mjs';
import { SECTIONS } from '../lesson/lesson-sections.mjs';
import { lazyMount, partsForHash } from './lazy-mount.mjs';
import { setupResume } from './resume.mjs';
import { getProgressStore } from '../store/progress.mjs';
import { setSettings } from '../store/settings.mjs';
import { addLookLines } from './look-lines.mjs';
import { html, loadPage, startEngine, baseCtx, makeErrorNode, mountPart, scrollToHash } from './page-common.mjs';

/** A message element for an engine/section error, in the page language. */
const errorNode = makeErrorNode('err.engine.Unknown');

// The language switch leads to the same place (query and hash) in each other edition.
let updateLangSwitch = () => {};

// Keep the hash on the section being read, so a copied link (and the language
// switch) returns to it. replaceState: no scrolling, no history entries.
function setupScrollSpy() {
  if (typeof IntersectionObserver === 'undefined') return;
  const links = new Map([...document.querySelectorAll('.toc a[href^="#"]')].map((a) => [a.getAttribute('href').slice(1), a]));
  const visible = new Map();
  let userScrolled = false;
  window.addEventListener('scroll', () => { userScrolled = true; }, { passive: true, once: true });
  const io = new IntersectionObserver((entries) => {
    for (const e of entries) visible.set(e.target.id, e.isIntersecting ? e.boundingClientRect.top : null);
    if (!userScrolled) return;
    let best = null, bestTop = Infinity;
    for (const [id, top] of visible) if (top !== null && Math.abs(top) < bestTop) { best = id; bestTop = Math.abs(top); }
    if (!best || location.hash === `#${best}`) return;
    history.replaceState(history.state, '', location.pathname + location.search + `#${best}`);
    for (const [id, a] of links) { if (id === best) a.setAttribute('aria-current', 'location'); else a.removeAttribute('aria-current'); }
    updateLangSwitch();
  }, { rootMargin: '0px 0px -60% 0px' });
  for (const { id } of SECTIONS) { const s = document.getElementById(id); if (s) io.observe(s); }
}

// Sections that read URL state (ctx.state) get a "copy link" button (copy-link.mjs).
const statefulSections = new Set();
function trackState(sectionId, st) {
  const mark = () => statefulSections.add(sectionId);
  return new Proxy(st, { get: (o, k) => { mark(); return o[k]; } });
}

function makeCtx(sectionId, settings, engine) {
  // A section whose call met a crashed worker offers to compute again on the new one
  const sectionError = (err, key) => {
    const p = errorNode(err, key);
    if (err && err.code === 'EngineCrashed') p.append(' ', recomputeButton(sectionId, settings, engine));
    return p;
  };
  return Object.assign(baseCtx(settings, { unitKey: 'site.unit', errorNode: sectionError }), {
    section: sectionId, engine, ltrExpr, state: trackState(sectionId, scoped(sectionId)),
  });
}

// After a crash the engine has a new worker, but the section computed nothing since. The
// button builds the section again from its URL state (every input a learner set is there), so
// it computes on the new worker; focus goes to the section's heading, as after a jump.
function recomputeButton(sectionId, settings, engine) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'btn btn-secondary';
  b.dataset.testid = `${sectionId}-recompute`;
  b.textContent = t('site.recompute');
  b.addEventListener('click', async () => {
    const root = document.getElementById(sectionId);
    const heading = root && root.querySelector(':scope > h2');
    if (!heading) return;
    b.disabled = true;
    root.replaceChildren(heading);
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
    await mountSection(SECTIONS.find((s) => s.id === sectionId), settings, engine);
  });
  return b;
}

// A table wider than the screen scrolls inside its .table-scroll wrapper; keyboard users
// must be able to reach that scroller, so an overflowing one becomes a focusable, named
// region (re-checked when the width changes: at 1280 px most tables fit and stay out of
// the tab order).
// The text of the nearest h2–h4 before el in the document (within its section).
function headingBefore(el) {
  for (let n = el; n && n.tagName !== 'SECTION' && n.tagName !== 'MAIN'; n = n.parentElement) {
    for (let p = n.previousElementSibling; p; p = p.previousElementSibling) {
      const hd = /^H[2-4]$/.test(p.tagName) ? p : [...p.querySelectorAll('h2, h3, h4')].pop();
      if (hd && spokenText(hd).trim()) return spokenText(hd).trim();
    }
  }
  return '';
}

const SCROLLERS = '.table-scroll, pre.code';
function makeScrollersReachable(root = document) {
  for (const el of root.querySelectorAll(SCROLLERS)) scrollerReachable(el);
}

function scrollerReachable(el) {
  const overflows = el.scrollWidth > el.clientWidth + 1;
  const hasFocusable = el.querySelector('button, a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])');
  if (overflows && !hasFocusable) {
    if (!el.hasAttribute('tabindex')) {
      el.tabIndex = 0;
      el.dataset.scrollFocus = '1';
      // a named region (an unnamed region is worse than none): the table's caption, else
      // the heading the table sits under
      const cap = el.querySelector('caption');
      const name = (cap && spokenText(cap).trim()) || headingBefore(el);
      if (name && !el.getAttribute('role') && !el.getAttribute('aria-label')) {
        el.setAttribute('role', 'region');
        el.setAttribute('aria-label', name);
      }
    }
  } else if (el.dataset.scrollFocus === '1' && !overflows) {
    el.removeAttribute('tabindex');
    delete el.dataset.scrollFocus;
  }
}

// A section's module loads when its mount starts (lazy-mount.mjs decides when).
async function mountSection({ id, module, citesInline }, settings, engine) {
  await mountPart(id, {
    load: () => import(`../sections/${module}`),
    ctx: () => makeCtx(id, settings, engine),
    errorNode, failKey: 'err.section', what: 'section',
  });
  const refs = SECTION_REFS[id];
  const root = document.getElementById(id);
  if (refs && !citesInline && root) {
    const ctx = makeCtx(id, settings, engine);
    const p = document.createElement('p');
    p.className = 'section-sources';
    p.dataset.testid = `${id}-sources`;
    p.append(ctx.tNode('refs.sectionSources'), ' ', cite(ctx, ...refs));
    root.append(p);
  }
  if (root && root.dataset.state === 'ready') addLookLines(root, { has, tNode });
  if (root && root.dataset.state === 'ready' && has(`${id}.takeaway`)) root.append(takeaway(id, makeCtx(id, settings, engine)));
  if (statefulSections.has(id)) addCopyLinks([id], { t });
}

// The section whose URL state (`s4.dk=…`) or #hash points into it mounts first. A hash
// naming an element that no section holds yet (`#ref-dao2022`, built by refs) needs
// every section: null.
function urgentSections() {
  const ids = SECTIONS.map((s) => s.id);
  const keys = [...new URLSearchParams(location.search).keys()];
  const fromState = ids.filter((id) => keys.some((k) => k.startsWith(`${id}.`)));
  const fromHash = partsForHash(ids);
  return fromHash && [...fromState, ...fromHash];
}

// "In short": the section's two or three lines to remember, last in the section. A
// role="note" (not <aside>: a complementary landmark may not sit inside the section's
// region), named by its own title so a screen reader announces "in short".
function takeaway(id, ctx) {
  const box = document.createElement('div');
  box.className = 'takeaway';
  box.setAttribute('role', 'note');
  box.dataset.testid = `${id}-takeaway`;
  const title = document.createElement('p');
  title.className = 'takeaway-title';
  title.id = `${id}-takeaway-title`;
  title.append(ctx.tNode('site.takeaway'));
  box.setAttribute('aria-labelledby', title.id);
  const body = document.createElement('p');
  body.className = 'takeaway-text';
  body.append(ctx.tNode(`${id}.takeaway`));
  box.append(title, body);
  return box;
}

// Did the learner move the page themselves while sections were mounting?
let userMoved = false;
for (const ev of ['wheel', 'touchstart', 'keydown', 'mousedown']) {
  window.addEventListener(ev, () => { userMoved = true; }, { passive: true, once: true });
}

async function main() {
  const page = await loadPage({
    readyKey: 'lesson',
    href: (a) => `../${a.dataset.lang}/${a.dataset.page || ''}${currentPlace()}`,
  });
  if (!page) return;
  const { settings } = page;
  // The edition being read is the reader's language: the chooser shows it first next time.
  try { if (getProgressStore().get().settings.lang !== html.lang) setSettings({ lang: html.lang }); } catch { /* this visit only */ }
  updateLangSwitch = page.updateLangSwitch;
  window.addEventListener('statechange', updateLangSwitch);
  window.addEventListener('hashchange', updateLangSwitch);

  const engine = startEngine(errorNode, 'err.engine.EngineLoad');

  const lazy = lazyMount({
    ids: SECTIONS.map((s) => s.id),
    mount: (id) => mountSection(SECTIONS.find((s) => s.id === id), settings, engine),
    urgent: urgentSections(),
    followHash: scrollToHash,
  });
  window.__lesson = { engine, ctx: (id) => makeCtx(id, settings, engine), mountAll: lazy.mountAll };
  setupResume({ lang: html.lang, ids: SECTIONS.map((s) => s.id), start: lazy.start, settle: lazy.settlePlace, ctx: { tNode }, firstScreen: lazy.firstScreen });
  await lazy.firstScreen;
  html.dataset.firstScreen = 'ready';
  // Content above the target grew while sections mounted: return to the learner's place.
  if (!userMoved) { lazy.settlePlace(); scrollToHash(); }
  setupScrollSpy();
  setupWhereBar({ toc: document.querySelector('.toc'), t });
  makeScrollersReachable();
  let resizeTimer = null;
  window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(makeScrollersReachable, 200); });
  // Sections mount later and re-render tables after interactions: check again the scrollers
  // that changed or arrived, soon after the first change (not after the last: a section that
  // keeps updating, such as chapter 13's held-out scores, would reset a debounce for as long).
  // Only those scrollers: a pass over a whole section reads every scroller's layout, and
  // chapter 14 updates its section several times a second while it trains (1.1 s of 15 s).
  // a fold opened shows tables that had no width while it was closed
  document.addEventListener('toggle', (e) => { if (e.target.open) makeScrollersReachable(e.target); }, true);
  let mutTimer = null;
  const changed = new Set();
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!el || el.closest('details:not([open])')) continue;   // checked when its fold opens
      const around = el.closest(SCROLLERS);
      if (around) changed.add(around);
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1) continue;
        if (n.matches(SCROLLERS)) changed.add(n);
        for (const inner of n.querySelectorAll(SCROLLERS)) changed.add(inner);
      }
    }
    if (mutTimer || !changed.size) return;
    // when idle, after the frame that showed the change: its layout is then done, and reading
    // the scrollers' widths costs no extra layout (a timer read them mid-update, forcing one)
    // A scroller inside a closed fold is skipped: it has no width until the fold opens (the
    // toggle listener checks it then), and reading it forces a layout of its hidden content
    // (chapter 14's attention table, rebuilt after every training chunk: a 20–33 ms task).
    const check = () => {
      mutTimer = null;
      for (const sc of changed) if (sc.isConnected && !sc.closest('details:not([open])')) scrollerReachable(sc);
      changed.clear();
    };
    mutTimer = typeof requestIdleCallback === 'function' ? requestIdleCallback(check, { timeout: 1000 }) : setTimeout(check, 300);
  }).observe(document.querySelector('main') || document.body, { childList: true, subtree: true, characterData: true });

  await lazy.all;
  html.dataset.lesson = 'ready';
  if (!userMoved) { lazy.settlePlace(); scrollToHash(); }
}

main();
