// Stand-ins for the DOM that web/js/pages/lazy-mount.mjs touches (document, window, elements,
// IntersectionObserver, ResizeObserver), for Node tests that drive its ordering step by step:
// an observer reports only when the test says so, as a browser's would at its next check.
//
// Usage:
//   const dom = installFakeObservers(['intro', 's1', 's2']);   // <section id=…> for each id
//   dom.report(['intro'])   // every live IntersectionObserver reports the elements it observes
//                           // and has not reported yet (isIntersecting for the ids given)
//   dom.scroll()            // the reader's first scroll (a 'scroll' event on window)
//   dom.click(target)       // a click event on document whose target is `target`
//   dom.scrollMovesPage()   // window.scrollTo moves the elements; returns jump(d), the browser's own scroll
//   dom.computedStyle(fn)   // getComputedStyle(el) → fn(el) (restored by uninstall)
//   dom.observers           // every IntersectionObserver made: {rootMargin, observed, disconnected}
//   dom.uninstall()
class FakeElement extends EventTarget {
  constructor(tag, id = '') {
    super();
    this.tabIndex = -1;
    this.tagName = tag.toUpperCase();
    this.id = id;
    this.dataset = {};
    this.className = '';
    this.replacedBy = null;
    this.top = 0;
    this.height = 100;
  }
  getBoundingClientRect() { return { top: this.top, bottom: this.top + this.height, height: this.height }; }
  replaceWith(node) { this.replacedBy = node; }
  closest() { return null; }
  querySelector() { return null; }   // no loading line: lazy-mount's keyboard stop has nothing to hold
}

export function installFakeObservers(ids) {
  const saved = Object.fromEntries(['document', 'window', 'location', 'IntersectionObserver', 'ResizeObserver', 'getComputedStyle']
    .map((k) => [k, Object.getOwnPropertyDescriptor(globalThis, k)]));
  const elements = new Map(ids.map((id) => [id, new FakeElement('section', id)]));
  const classes = new Set();
  const observers = [];
  const resizeObservers = [];

  class FakeIntersectionObserver {
    constructor(callback, { rootMargin = '0px' } = {}) {
      this.callback = callback;
      this.rootMargin = rootMargin;
      this.observed = new Set();
      this.reported = new Set();
      this.disconnected = false;
      observers.push(this);
    }
    observe(el) { this.observed.add(el); this.disconnected = false; }
    unobserve(el) { this.observed.delete(el); }
    disconnect() { this.observed.clear(); this.disconnected = true; }
  }
  class FakeResizeObserver {
    constructor(callback) { this.callback = callback; this.observed = new Set(); resizeObservers.push(this); }
    observe(el) { this.observed.add(el); }
    disconnect() { this.observed.clear(); }
  }

  const win = new EventTarget();
  win.innerHeight = 800;
  win.scrollY = 0;
  win.scrolls = [];
  win.scrollTo = ({ top }) => { win.scrolls.push(top); win.scrollY = top; };
  const set = (k, v) => Object.defineProperty(globalThis, k, { value: v, configurable: true, writable: true });
  set('window', win);
  set('location', { hash: '' });
  // (an EventTarget: lazy-mount listens for clicks on same-page links there)
  set('document', Object.assign(new EventTarget(), {
    documentElement: { dataset: {}, classList: { add: (c) => classes.add(c), remove: (c) => classes.delete(c), contains: (c) => classes.has(c) } },
    getElementById: (id) => elements.get(id) || null,
    querySelector: () => null,   // no header: resume.mjs has nowhere to put an offer
    createElement: (tag) => new FakeElement(tag),
  }));
  set('IntersectionObserver', FakeIntersectionObserver);
  set('ResizeObserver', FakeResizeObserver);

  return {
    elements,
    observers,
    resizeObservers,
    classes,
    window: win,
    /** Each live observer's check: it reports, once, every element it observes and has not reported. */
    report(nearIds = [], nearElements = []) {
      for (const io of observers) {
        if (io.disconnected) continue;
        const fresh = [...io.observed].filter((el) => !io.reported.has(el));
        if (!fresh.length) continue;
        for (const el of fresh) io.reported.add(el);
        io.callback(fresh.map((el) => ({ target: el, isIntersecting: nearIds.includes(el.id) || nearElements.includes(el) })), io);
      }
    },
    scroll() { win.dispatchEvent(new Event('scroll')); },
    /**
     * From now on scrolling moves what is on the page, as in a browser: window.scrollTo (landing
     * on whole pixels with { whole: true }) and the returned jump(d), a scroll the browser makes
     * by itself (a link, scrollIntoView). Neither fires the scroll event.
     */
    scrollMovesPage({ whole = false } = {}) {
      const jump = (d) => { win.scrollY += d; for (const el of elements.values()) el.top -= d; };
      win.scrollTo = ({ top }) => { const to = whole ? Math.round(top) : top; win.scrolls.push(to); jump(to - win.scrollY); };
      return jump;
    },
    /** getComputedStyle(el) answers fn(el) until uninstall(). */
    computedStyle(fn) { set('getComputedStyle', fn); },
    /** A click that reaches the document with `target` (which has its own closest()). */
    click(target) {
      const ev = new Event('click');
      Object.defineProperty(ev, 'target', { value: target });
      globalThis.document.dispatchEvent(ev);
    },
    /** The live observer that watches el, if any. */
    observerOf(el) { return observers.find((io) => !io.disconnected && io.observed.has(el)) || null; },
    uninstall() {
      for (const [k, d] of Object.entries(saved)) {
        if (d) Object.defineProperty(globalThis, k, d); else delete globalThis[k];
      }
    },
  };
}
