// When each lesson section mounts (issue 14 item 7). Building every live section on load
// blocked the main thread for about half a second before the first screen could be used, and
// building them later in idle time still did, in Lighthouse's window (each chapter is a
// 120–300 ms task at its 4× CPU slowdown). Now a section mounts
//   - at once when it is on the first screen, or when the caller marks it `urgent` (the URL's
//     #hash or its `sN.*` state points into it);
//   - once the reader scrolls, when it is within `rootMargin` of the screen (a screen above
//     and below by default, so a reader scrolling finds it built). Until the first scroll the
//     margin is `firstMargin` (none): on a phone the first screen is the contents, and the
//     first chapter just below it is built when the reader starts to move, not during load;
//   - at once, all of them, through mountAll() (printing, finding in the page, a link to an
//     element that only a mounted section has; tests that need the whole lesson).
// A section the reader never nears is never built. Without IntersectionObserver every
// section mounts at once, as before.
//
// Usage (pages/lesson.mjs, pages/practice.mjs):
//   const lazy = lazyMount({ ids: ['intro', 's1', …], mount: (id) => mountSection(id), urgent: ['s7'],
//                            followHash: scrollToHash });
//   (urgent: null mounts every section at once: the #hash names an element none has built yet;
//   followHash is called after a late same-page link has made every section mount)
//   await lazy.firstScreen;    // the sections mounted at once have settled
//   await lazy.all;            // every section has mounted or failed (after mountAll(), or
//                              // once the reader has been near each)
// mount(id) must not throw (it reports its own failure); it is called once per id.
// Hooks: data-state="pending" on a section's element until its mount starts (mountPart then
// sets loading → ready | error).

import { hashId } from './url-hash.mjs';
import { keyboardStop, holdTabWhileNextMounts } from '../widgets/tab-stops.mjs';
import { nearWatcher } from '../widgets/near-watcher.mjs';
import { pageItems } from '../widgets/lazy-item.mjs';

// Where a jump to el puts its top: the page's scroll padding (under the where-bar) plus el's
// own scroll margin, as the browser computes it for a #hash.
function jumpTop(el) {
  if (typeof getComputedStyle !== 'function') return 0;
  const pad = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
  return pad + (parseFloat(getComputedStyle(el).scrollMarginTop) || 0);
}

// The reader's place while sections mount: the browser's own scroll anchoring picks an element
// of a section that is still to grow (a section above, whose last lines show under the fixed
// where-bar, or a placeholder the mount removes), and a reader who jumped to s9 saw it pushed
// down by the height of s8 (68 → 1609 px). So while sections mount, the page keeps the top of
// the section under the line a quarter down the screen where it was, itself: browser anchoring is off
// (html.lesson-mounting, site.css), a ResizeObserver sees any section change height and the
// page scrolls by what that moved the reader's section; a scroll re-reads the place.
function keepPlace(sections) {
  if (typeof ResizeObserver === 'undefined') return Object.assign(() => {}, { settle() {} });
  const root = document.documentElement;
  root.classList.add('lesson-mounting');
  let anchor = null, anchorTop = 0, y = 0;
  let jumpTarget = null;   // a same-page link's target, until the first look after its click (onLink)
  // residual: a move of the same anchor too small to scroll for, kept in the baseline so that
  // many of them add up to a scroll instead of drifting the place
  const read = (residual = 0) => {
    const line = window.innerHeight / 4;   // below the where-bar, in what the reader reads
    const was = anchor;
    anchor = sections.find((s) => s.getBoundingClientRect().bottom > line) || null;
    anchorTop = anchor ? anchor.getBoundingClientRect().top - (anchor === was ? residual : 0) : 0;
    y = window.scrollY;
  };
  // Where the anchor is against where the scrolling since the last look puts it: the
  // difference is what sections above it grew; scroll by that, then look again. (A scroll
  // event may come after a section grew and before the ResizeObserver reports it: it
  // compensates too, so the growth is never taken as the reader's own move.)
  // A reader at the very top of the page (y = 0) keeps the top: what grows there (the resume
  // offer in the header) is what they are looking at, not something to scroll away from.
  // A move under a pixel is not scrolled for, and not taken as the new place either (the
  // baseline drifted by each one: a jump to s9 ended 3 px off after many small ones). Nor is
  // the fraction a scroll leaves: the page scrolls by whole pixels, and taking what it landed
  // on as the new place lost up to half a pixel per section mounted (s9's heading, 68 px down
  // after a jump, ended 2–3 px higher once all seventeen had mounted).
  const adjust = () => {
    let residual = 0;
    if (jumpTarget) {
      // the first look after a same-page link's click (onLink below): its target where the
      // browser puts it, under the scroll padding, whatever grew since the click
      const el = jumpTarget;
      jumpTarget = null;
      const moved = el.getBoundingClientRect().top - jumpTop(el);
      if (Math.abs(moved) >= 1) window.scrollTo({ top: window.scrollY + moved, behavior: 'instant' });
      read();
      return;
    }
    if (anchor && y > 0) {
      const scrolled = window.scrollY;
      const place = anchorTop - (scrolled - y);   // where the reader's own scrolling put the anchor
      const moved = anchor.getBoundingClientRect().top - place;
      if (Math.abs(moved) >= 1) window.scrollTo({ top: scrolled + moved, behavior: 'instant' });
      const left = anchor.getBoundingClientRect().top - place;
      if (Math.abs(left) < 1) residual = left;   // more is a scroll the page's end stopped: not kept
    }
    read(residual);
  };
  const onScroll = adjust;
  const ro = new ResizeObserver(adjust);
  read();
  for (const s of sections) ro.observe(s);
  window.addEventListener('scroll', onScroll, { passive: true });
  // A same-page link (the contents, the where-bar's links, a citation) jumps to a place the
  // browser computes from the layout: take in what grew before the click (capture phase:
  // before the link's own handlers and its default action). Chromium scrolls to the target only
  // at its next frame, with the layout as it is then: a section that grows between the click
  // and that frame is taken in by the jump itself, and counted again from the place read at
  // the click it moved the reader twice (chapter 5's heading 337 px above the screen,
  // reader-path under load). So the first look after the click puts the target where the
  // browser puts it (jumpTarget in adjust), and the place is kept from there. Two frames on,
  // the jump and its scroll event are past: a link to where the reader already is scrolls
  // nothing, and their own scrolling after it must not be undone.
  const onLink = (ev) => {
    const link = ev.target?.closest?.('a[href^="#"]');
    if (!link) return;
    adjust();
    let id = '';
    try { id = decodeURIComponent(link.getAttribute?.('href')?.slice(1) || ''); } catch { /* not a valid id */ }
    const el = id ? document.getElementById(id) : null;
    if (!el) return;
    jumpTarget = el;
    if (typeof requestAnimationFrame === 'function') {
      requestAnimationFrame(() => requestAnimationFrame(() => { if (jumpTarget === el) jumpTarget = null; }));
    }
  };
  // A link whose own handler cancels the jump and scrolls by itself (the where-bar's "top" goes
  // to the very top, not to #main): no jump to keep. (Bubble phase on window: after its handlers.)
  const onLinkDone = (ev) => { if (ev.defaultPrevented) jumpTarget = null; };
  document.addEventListener('click', onLink, true);
  window.addEventListener('click', onLinkDone);
  let released = false;
  const release = () => {
    released = true;
    ro.disconnect();
    window.removeEventListener('scroll', onScroll);
    document.removeEventListener('click', onLink, true);
    window.removeEventListener('click', onLinkDone);
    root.classList.remove('lesson-mounting');
  };
  // Before the page scrolls by itself (to the #hash, to a saved reading place): take in what
  // grew since the last look, or the scroll's own event would be taken for that growth and
  // move the reader a second time (a shared #s8 link ended with its heading 1,000 px above
  // the screen).
  return Object.assign(release, { settle: () => { if (!released) adjust(); } });
}

export function lazyMount({ ids, mount, urgent = [], followHash = () => {}, rootMargin = '100% 0px 100% 0px', firstMargin = '0px', items = pageItems }) {
  const release = keepPlace(ids.map((id) => document.getElementById(id)).filter(Boolean));
  const started = new Map();
  const settled = new Map();
  const whenSettled = new Map(ids.map((id) => [id, new Promise((resolve) => settled.set(id, resolve))]));
  for (const id of ids) {
    const el = document.getElementById(id);
    if (el && !el.dataset.state) el.dataset.state = 'pending';
  }

  function start(id) {
    if (!started.has(id) && settled.has(id)) {
      const p = Promise.resolve().then(() => mount(id)).catch((err) => console.error(`section ${id}`, err));
      started.set(id, p);
      p.finally(() => settled.get(id)());
      // (no unobserve: the observer's first report, which the first screen waits for, must
      // come even when every section was started before it, by mountAll() or as urgent,
      // unless every section has settled)
    }
    return whenSettled.get(id);
  }
  for (const id of ids) {
    const part = document.getElementById(id);
    if (part) keyboardStop(part.querySelector(':scope > .section-loading'), () => start(id), () => part);
  }
  holdTabWhileNextMounts(ids, start);
  // (then the items inside parts that wait for the reader too: widgets/lazy-item.mjs)
  const mountAll = () => Promise.all(ids.map(start)).then(() => items.buildAll());
  mountAllWhenNeeded(mountAll, () => { release.settle(); followHash(); });
  const urgentIds = urgent || [];

  const allSettled = Promise.all(ids.map((id) => whenSettled.get(id)));
  let sectionsNear = null;
  let firstScreen;
  if (typeof IntersectionObserver === 'undefined') {
    firstScreen = mountAll();
  } else {
    let firstCall;
    const firstEntries = new Promise((resolve) => { firstCall = resolve; });
    sectionsNear = nearWatcher((entries) => {
      const near = entries.filter((e) => e.isIntersecting).map((e) => e.target.id);
      for (const id of near) start(id);
      firstCall(near);
    }, firstMargin);
    for (const id of ids) { const el = document.getElementById(id); if (el) sectionsNear.watch(el); }
    // items inside parts use the parts' margins; once the reader moves, both look ahead
    items.widen(firstMargin);
    window.addEventListener('scroll', () => { sectionsNear.widen(rootMargin); items.widen(rootMargin); }, { passive: true, once: true });
    for (const id of urgentIds) start(id);
    // The observer reports every observed element once, at its first check. When every part
    // settled first (mountAll right after load), `all` stops the observer and that report never
    // comes (a CI run waited for it forever): the first screen is ready then too.
    firstScreen = Promise.race([
      firstEntries.then((near) => Promise.all([...new Set([...urgentIds, ...near])].filter((id) => settled.has(id)).map(start))),
      allSettled,
    ]);
  }
  if (urgent === null) mountAll();   // the #hash names an element no section has built yet

  return {
    firstScreen: firstScreen.then(() => {}),
    settlePlace: () => release.settle(),   // call before scrolling the page (keepPlace above)
    all: allSettled.then(() => { if (sectionsNear) sectionsNear.stop(); release(); }),
    start,
    mountAll,
  };
}

// A same-page link (a citation's "[3]" → #ref-…) to an element that no part has built yet,
// printing (the printout holds what is built) and finding in the page (the browser finds only
// what is built): mount them all; then `followHash()` for the link.
function mountAllWhenNeeded(mountAll, followHash) {
  window.addEventListener('hashchange', () => {
    const id = hashId();
    if (id && !document.getElementById(id)) mountAll().then(followHash);
  });
  window.addEventListener('beforeprint', () => { mountAll(); });
  window.addEventListener('keydown', (e) => {
    const find = e.key === 'F3' || ((e.ctrlKey || e.metaKey) && !e.altKey && e.code === 'KeyF');
    if (find) mountAll();
  });
}

// The parts a URL's #hash points into (its own id, or the part holding that element), which
// mount at once; null when the hash names an element no part has built yet (every part must
// mount to find it).
export function partsForHash(ids) {
  const hash = hashId();
  if (!hash) return [];
  const target = document.getElementById(hash);
  const part = target && target.closest('main > section[id]');
  if (part && ids.includes(part.id)) return [part.id];
  return target ? [] : null;
}
