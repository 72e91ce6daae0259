// The one script a lesson or practice page loads before its first paint (issue 14 item 7).
// Everything the first screen shows (title, lede, contents, section headings) is in the HTML;
// the page's modules, its prose JSON and KaTeX are not needed to draw it. Fetched at once, they
// shared the first seconds of a slow connection with the stylesheets and the fonts the first
// paint waits for (font-display: block), and Lighthouse's mobile run counted all of them before
// the first paint. So the page's own script (its <script data-entry>) loads once the first
// screen has painted with the page font, and only then does the page add the preloads make-site wrote into
// <template id="after-first-paint"> (its whole static import graph, the prose, KaTeX), so the
// graph still arrives at once rather than one import level per round trip.
// A page that never paints (a background tab) or a browser without paint timing loads its
// script after FALLBACK_MS at most: the fonts' own block period.

const FALLBACK_MS = 3000;

function firstPaint() {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FALLBACK_MS);
    const done = () => { clearTimeout(timer); resolve(); };
    const types = (typeof PerformanceObserver !== 'undefined' && PerformanceObserver.supportedEntryTypes) || [];
    if (!types.includes('paint')) { requestAnimationFrame(() => setTimeout(done, 0)); return; }
    const po = new PerformanceObserver((list) => {
      if (list.getEntries().some((e) => e.name === 'first-contentful-paint')) { po.disconnect(); done(); }
    });
    po.observe({ type: 'paint', buffered: true });
  });
}

// The page font (font-display: block) must be here before its text paints: wait for it too,
// and for the frame that paints the text with it.
async function firstTextPaint() {
  await firstPaint();
  if (document.fonts && document.fonts.ready) {
    await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, FALLBACK_MS))]);
  }
  // (a frame never comes in a background tab: at most 100 ms)
  await Promise.race([new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))), new Promise((r) => setTimeout(r, 100))]);
}

const script = document.querySelector('script[data-entry]');
await firstTextPaint();
const later = document.getElementById('after-first-paint');
if (later) document.head.append(later.content.cloneNode(true));
await import(new URL(script.dataset.entry, document.baseURI).href);
