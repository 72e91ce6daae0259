// When each lesson section mounts (issue 14 item 7). Building every live section on load
// blocked the main thread for about half a second before the first screen could be used;
// now a section mounts
//   - at once when it is on the first screen or within `rootMargin` of it (IntersectionObserver:
//     two screens above and below by default, so a reader scrolling fast finds it built),
//     or when the caller marks it `urgent` (the URL's #hash or its `sN.*` state points into it);
//   - when the reader scrolls near it;
//   - otherwise in idle time once the first screen has mounted, one section per idle period,
//     each after the previous one settled (its engine calls included, so the sections the
//     reader scrolls to do not queue behind them);
//   - at once, all of them, through mountAll() (printing, a link to an element that only a
//     mounted section has).
// Without IntersectionObserver every section mounts at once, as before.
//
// Usage (pages/lesson.mjs):
//   const lazy = lazyMount({ ids: ['intro', 's1', …], mount: (id) => mountSection(id), urgent: ['s7'] });
//   await lazy.firstScreen;    // the sections mounted at once have settled; idle mounting has begun
//   await lazy.all;            // every section has mounted or failed
// mount(id) must not throw (it reports its own failure); it is called once per id.
// Hooks: data-state="pending" on a section's element until its mount starts (mountPart then
// sets loading → ready | error).

const idle = typeof requestIdleCallback === 'function'
  ? (fn) => requestIdleCallback(fn, { timeout: 2000 })   // never wait forever on a busy page
  : (fn) => setTimeout(fn, 50);

// The reader's place while sections mount: the browser's own scroll anchoring picks an element
// of a section that is still to grow (a section above, whose last lines show under the fixed
// where-bar, or a placeholder the mount removes), and a reader who jumped to s9 saw it pushed
// down by the height of s8 (68 → 1609 px). So while sections mount, the page keeps the top of
// the section under the line a quarter down the screen where it was, itself: browser anchoring is off
// (html.lesson-mounting, site.css), a ResizeObserver sees any section change height and the
// page scrolls by what that moved the reader's section; a scroll re-reads the place.
function keepPlace(sections) {
  if (typeof ResizeObserver === 'undefined') return () => {};
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
  const adjust = () => {
    if (anchor) {
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
  return () => {
    ro.disconnect();
    window.removeEventListener('scroll', onScroll);
    root.classList.remove('lesson-mounting');
  };
}

export function lazyMount({ ids, mount, urgent = [], rootMargin = '200% 0px 200% 0px' }) {
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
      if (io) { const el = document.getElementById(id); if (el) io.unobserve(el); }
    }
    return whenSettled.get(id);
  }
  const mountAll = () => Promise.all(ids.map(start));

  let io = null;
  let firstScreen;
  if (typeof IntersectionObserver === 'undefined') {
    firstScreen = mountAll();
  } else {
    let firstCall;
    const firstEntries = new Promise((resolve) => { firstCall = resolve; });
    io = new IntersectionObserver((entries) => {
      const near = entries.filter((e) => e.isIntersecting).map((e) => e.target.id);
      for (const id of near) start(id);
      firstCall(near);
    }, { rootMargin });
    for (const id of ids) { const el = document.getElementById(id); if (el) io.observe(el); }
    for (const id of urgent) start(id);
    // The observer reports every observed element once, at its first check.
    firstScreen = firstEntries.then((near) => Promise.all([...new Set([...urgent, ...near])].filter((id) => settled.has(id)).map(start)));
  }

  // The rest, in page order, one per idle period, after the first screen.
  firstScreen.then(() => {
    const rest = ids.filter((id) => !started.has(id));
    const next = () => {
      const id = rest.find((x) => !started.has(x));
      if (id) idle(() => { start(id).then(next); });
    };
    next();
  });

  return {
    firstScreen: firstScreen.then(() => {}),
    all: Promise.all(ids.map((id) => whenSettled.get(id))).then(() => { if (io) io.disconnect(); release(); }),
    start,
    mountAll,
    isStarted: (id) => started.has(id),
  };
}
