// An IntersectionObserver over a changing set of elements whose margin can widen (at the
// reader's first scroll): widen() observes them all again with the new margin, and the new
// observer reports each once at its first check, as the first did. Created at the first watch().
export function nearWatcher(onEntries, margin) {
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
