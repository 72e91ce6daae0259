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
  const read = () => {
    const line = window.innerHeight / 4;   // below the where-bar, in what the reader reads
    anchor = sections.find((s) => s.getBoundingClientRect().bottom > line) || null;
    anchorTop = anchor ? anchor.getBoundingClientRect().top : 0;
    y = window.scrollY;
  };
  // Where the anchor is against where the scrolling since the last look puts it: the
  // difference is what sections above it grew; scroll by that, then look again. (A scroll
  // event may come after a section grew and before the ResizeObserver reports it: it
  // compensates too, so the growth is never taken as the reader's own move.)
  // A reader at the very top of the page (y = 0) keeps the top: what grows there (the resume
  // offer in the header) is what they are looking at, not something to scroll away from.
  const adjust = () => {
    if (anchor && y > 0) {
      const moved = anchor.getBoundingClientRect().top - (anchorTop - (window.scrollY - y));
      if (Math.abs(moved) >= 1) window.scrollTo({ top: window.scrollY + moved, behavior: 'instant' });
    }
    read();
  };
  const onScroll = adjust;
  const ro = new ResizeObserver(adjust);
  read();
  for (const s of sections) ro.observe(s);
  window.addEventListener('scroll', onScroll, { passive: true });
  let released = false;
  const release = () => {
    released = true;
    ro.disconnect();
    window.removeEventListener('scroll', onScroll);
    root.classList.remove('lesson-mounting');
  };
  // Before the page scrolls by itself (to the #hash): take in what grew since the last look,
  // or the scroll's own event would be taken for that growth and moved the reader a second
  // time (a shared #s8 link ended with its heading 1,000 px above the screen).
  return Object.assign(release, { settle: () => { if (!released) adjust(); } });
}

export function lazyMount({ ids, mount, urgent = [], followHash = () => {}, rootMargin = '100% 0px 100% 0px', firstMargin = '0px' }) {
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
  // (then the items inside parts that wait for the reader too: buildWhenNear below)
  const mountAll = () => Promise.all(ids.map(start)).then(buildAllItems);
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

// The keyboard: a part not built yet has no control, so Tab went past it, and a held Tab (key
// repeat, 25 a second) skipped every such part to the footer while they mounted above it and
// pushed it off the screen. The part's loading line is a tab stop instead: reached by Tab or
// Shift+Tab, it mounts the part, the Tab presses meanwhile are held, and then the focus goes
// to the part's first control (its last one going backwards; its heading if it has none). A
// click or a tap on the line only mounts it (focusing a field there would open a phone's keyboard).
let backwards = false;
let holding = 0;
if (typeof window !== 'undefined') {
  window.addEventListener('keydown', (e) => {
    if (e.key !== 'Tab') return;
    if (holding) e.preventDefault();
    else backwards = e.shiftKey;
  }, true);
}
const TABBABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';
const tabStops = (part) => [...part.querySelectorAll(TABBABLE)].filter((el) => el.tabIndex >= 0
  && (el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : el.getClientRects().length > 0));
function enter(part, back) {
  const stops = tabStops(part);
  let target = back ? stops[stops.length - 1] : stops[0];
  if (!target) {
    target = part.querySelector('h2, h3') || part;
    if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
  }
  target.focus();
}
// A part whose mount has started has lost its loading line (mountPart removes it before
// mount() runs) and has no control until mount() ends: a held Tab leaving the part before it
// went past it (chapter 14's summary, in a CI run). So Tab from a part's last stop (Shift+Tab
// from its first) into a neighbour still mounting is held until the neighbour is built, and
// the focus then enters it, as the loading line's stop does.
function holdTabWhileNextMounts(ids, start) {
  if (typeof window === 'undefined') return;
  window.addEventListener('keydown', (e) => {
    if (e.key !== 'Tab' || holding || e.defaultPrevented) return;
    const a = document.activeElement;
    const part = a && a.closest && a.closest('main > section[id]');
    const i = part ? ids.indexOf(part.id) : -1;
    const next = i >= 0 ? document.getElementById(ids[i + (e.shiftKey ? -1 : 1)]) : null;
    if (!next || next.dataset.state !== 'loading') return;
    const stops = tabStops(part);
    if (a !== (e.shiftKey ? stops[0] : stops[stops.length - 1])) return;
    e.preventDefault();
    const back = e.shiftKey;
    holding++;
    Promise.resolve(start(next.id)).finally(() => {
      holding--;
      if (document.activeElement === a && next.isConnected) enter(next, back);
    });
  }, true);
}

// line: the placeholder that takes the focus; ready(): builds the part (a promise or not);
// partOf(): the part built, to enter.
function keyboardStop(line, ready, partOf) {
  if (!line) return;
  line.tabIndex = 0;
  line.addEventListener('focus', () => {
    if (!line.matches(':focus-visible')) { ready(); return; }
    const back = backwards;
    holding++;
    Promise.resolve(ready()).finally(() => {
      holding--;
      const a = document.activeElement;
      const part = partOf();
      if (part && part.isConnected && (!a || a === document.body || a === line || !a.isConnected)) enter(part, back);
    });
  }, { once: true });
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

// Items inside a part (a practice block's six experiments or its myths): a part on the first
// screen shows one or two of them, and building the others with it was most of the load's
// blocking time (their text, formulas and choices, then laying them out). buildWhenNear()
// returns a placeholder that the item replaces when it nears the screen, by the same margins
// as the parts (none before the reader's first scroll, then a screen either way); mountAll()
// builds every item left. Without IntersectionObserver the item is built at once.
// The placeholder (.lazy-item, practice.css) holds about an item's height.
const pendingItems = new Map();   // placeholder → [build(), failed(err)]
const items = nearWatcher((entries) => { for (const e of entries) if (e.isIntersecting) buildItem(e.target); }, '0px');

function buildItem(placeholder) {
  const [build, failed] = pendingItems.get(placeholder) || [];
  if (!build) return null;
  pendingItems.delete(placeholder);
  items.unwatch(placeholder);
  // one item failing leaves the others to build; it shows failed(err) instead, as a part does
  let made = null;
  try { made = build(); placeholder.replaceWith(made); } catch (err) {
    console.error('item failed', err);
    made = failed ? failed(err) : null;
    if (made) placeholder.replaceWith(made);
  }
  return made;
}

function buildAllItems() {
  for (const ph of [...pendingItems.keys()]) buildItem(ph);
}

/**
 * An element that becomes build() when it nears the screen (build() returns the item's
 * element; if it throws, failed(err) returns what shows instead).
 */
export function buildWhenNear(build, failed) {
  if (typeof IntersectionObserver === 'undefined') return build();
  const placeholder = document.createElement('div');
  placeholder.className = 'lazy-item';
  pendingItems.set(placeholder, [build, failed]);
  items.watch(placeholder);
  // reached by Tab, it is built at once and the focus enters it (keyboardStop above)
  let made = null;
  keyboardStop(placeholder, () => { made = buildItem(placeholder); }, () => made);
  return placeholder;
}

// An IntersectionObserver over a changing set of elements whose margin can widen (at the
// reader's first scroll): widen() observes them all again with the new margin, and the new
// observer reports each once at its first check, as the first did. Created at the first watch().
function nearWatcher(onEntries, margin) {
  const watched = new Set();
  let io = null;
  const make = () => {
    io = new IntersectionObserver(onEntries, { rootMargin: margin });
    for (const el of watched) io.observe(el);
  };
  return {
    watch(el) { watched.add(el); if (io) io.observe(el); else make(); },
    unwatch(el) { watched.delete(el); if (io) io.unobserve(el); },
    widen(m) { margin = m; if (io) { io.disconnect(); make(); } },
    stop() { watched.clear(); if (io) io.disconnect(); io = null; },
  };
}
