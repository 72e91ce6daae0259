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

export function lazyMount({ ids, mount, urgent = [], rootMargin = '200% 0px 200% 0px' }) {
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
    all: Promise.all(ids.map((id) => whenSettled.get(id))).then(() => { if (io) io.disconnect(); }),
    start,
    mountAll,
    isStarted: (id) => started.has(id),
  };
}
