// The one script a lesson or practice page loads before its first paint (issue 14 item 7).
// Everything the first screen shows (title, lede, contents, section headings) is in the HTML;
// the page's modules, its prose JSON and KaTeX are not needed to draw it. Fetched at once, they
// shared the first seconds of a slow connection with the stylesheets and the font the first
// paint waits for, and Lighthouse's mobile run counted all of them before the first paint.
// So the page's own script (its <script data-entry>) loads once the first screen has painted
// with the page font, and only then does the page add the preloads make-site wrote into
// <template id="after-first-paint"> (its whole static import graph, the prose, KaTeX), so the
// graph still arrives at once rather than one import level per round trip.
// A font that does not come, a page that never paints (a background tab) or a browser without
// paint timing hold the page back FALLBACK_MS at most: the fonts' own block period.

const FALLBACK_MS = 3000;
const after = (ms) => new Promise((r) => setTimeout(r, ms));

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

// The page shows once its font is here (html.font-pending hides it, site.css): painted with
// the fallback font first, the header and contents reflowed when the font came. Laying the page
// out first makes the browser request the fonts its text needs, so fonts.ready waits for them.
async function pageFont() {
  void document.body.offsetHeight;
  if (document.fonts && document.fonts.ready) {
    await Promise.race([document.fonts.ready, after(FALLBACK_MS)]);
  }
  document.documentElement.classList.remove('font-pending');
}

async function firstTextPaint() {
  await pageFont();
  await firstPaint();
  // the frame that paints it (a frame never comes in a background tab: at most 100 ms)
  await Promise.race([new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))), after(100)]);
}

const script = document.querySelector('script[data-entry]');
await firstTextPaint();
const later = document.getElementById('after-first-paint');
if (later) document.head.append(later.content.cloneNode(true));
await import(new URL(script.dataset.entry, document.baseURI).href);
