// The "where am I" bar of a long page (issue 12): once the header's contents list has scrolled
// away, a compact bar fixed at the top says which section the reader is in ("بخش ۴ از ۹" and
// that section's title, in the page's language and digits) with a link back to the contents
// and one to the top of the page. Everything comes from the page itself: the sections are
// `main > section[id]` with an <h2>, so sections added to the lesson need no change here.
// A chapter's number is its data-number (lesson-sections.mjs: the big idea, the summary and
// the sources have none, and the bar shows only their title), "of n" counts the chapters.
// The bar is `position: fixed` (it never moves the text under it); the page's
// `scroll-padding-top` (site.css, --where-h: the height measured here) keeps whatever is
// scrolled to, a jump's heading or a focused control, from ending under it.
//
// Usage: setupWhereBar({ toc: document.querySelector('.toc'), t });
// Hooks: [data-testid=where-bar] (hidden while the contents are on screen), where-now,
// where-top, where-toc; data-section on the bar = the current section's id.

export function setupWhereBar({ toc, t }) {
  const sections = [...document.querySelectorAll('main > section[id]')].filter((s) => s.querySelector('h2'));
  if (!sections.length) return null;
  const chapters = sections.filter((s) => s.dataset.number).length;
  if (toc && !toc.id) toc.id = 'toc';

  const bar = document.createElement('nav');
  bar.className = 'where-bar';
  bar.dataset.testid = 'where-bar';
  bar.setAttribute('aria-label', t('site.whereLabel'));
  bar.hidden = true;

  const tocLink = document.createElement('a');
  tocLink.className = 'where-toc';
  tocLink.dataset.testid = 'where-toc';
  tocLink.href = `#${toc ? toc.id : 'main'}`;
  tocLink.textContent = t('site.toContents');

  const now = document.createElement('p');
  now.className = 'where-now';
  now.dataset.testid = 'where-now';
  const count = document.createElement('span');
  count.className = 'where-count';
  const title = document.createElement('span');
  title.className = 'where-title';
  now.append(count, title);

  const top = document.createElement('a');
  top.className = 'where-top';
  top.dataset.testid = 'where-top';
  top.href = '#main';
  top.textContent = t('site.backToTop');
  top.setAttribute('aria-label', t('site.backToTop'));

  bar.append(tocLink, now, top);
  // right after the header: in the tab order between the contents and the text
  const header = document.querySelector('.site-header');
  if (header) header.after(bar); else document.body.prepend(bar);

  // Focus where the reader lands (keyboard users), without a second jump; no history entry.
  const land = (el, focusEl) => {
    el.scrollIntoView();
    if (focusEl) {
      if (!focusEl.hasAttribute('tabindex') && !/^(A|BUTTON|INPUT|SELECT|TEXTAREA)$/.test(focusEl.tagName)) focusEl.tabIndex = -1;
      focusEl.focus({ preventScroll: true });
    }
  };
  tocLink.addEventListener('click', (ev) => {
    if (!toc) return;
    ev.preventDefault();
    land(toc, toc.querySelector('a[aria-current]') || toc.querySelector('a'));
  });
  top.addEventListener('click', (ev) => {
    ev.preventDefault();
    window.scrollTo(0, 0);
    const h1 = document.querySelector('h1');
    if (h1) land(document.documentElement, h1);
    history.replaceState(history.state, '', location.pathname + location.search);
    window.dispatchEvent(new HashChangeEvent('hashchange'));   // the language switch follows
  });

  let current = -1;
  let shown = false;
  function render() {
    const s = sections[current];
    const h = s.querySelector('h2');
    const number = Number(s.dataset.number) || 0;
    count.textContent = number ? t('site.whereSection', { k: number, n: chapters }) : '';
    count.hidden = !number;
    // a copy of the heading's content: its formulas stay KaTeX (textContent would spell them twice)
    title.replaceChildren(...(h ? [...h.childNodes].map((n) => n.cloneNode(true)) : []));
    bar.dataset.section = s.id;
  }
  // One layout read per frame at most, none while nothing scrolls.
  let queued = false;
  function measure() {
    queued = false;
    const tocGone = !toc || toc.getBoundingClientRect().bottom < 0;
    const barH = shown ? bar.offsetHeight : 0;
    // the section that holds the line a third of the way down the screen
    const line = barH + (window.innerHeight - barH) / 3;
    let k = 0;
    for (let i = 0; i < sections.length; i++) if (sections[i].getBoundingClientRect().top <= line) k = i;
    if (tocGone !== shown) {
      shown = tocGone;
      bar.hidden = !shown;
    }
    if (k !== current) { current = k; render(); }
  }
  // Its height, known before it first shows: a jump from the contents at the top of the page
  // (bar still hidden) must already leave room for it.
  function measureHeight() {
    const was = bar.hidden;
    bar.hidden = false;
    document.documentElement.style.setProperty('--where-h', `${bar.offsetHeight}px`);
    bar.hidden = was;
  }
  const schedule = () => { if (!queued) { queued = true; requestAnimationFrame(measure); } };
  window.addEventListener('scroll', schedule, { passive: true });
  let resizeTimer = null;
  window.addEventListener('resize', () => {
    schedule();
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(measureHeight, 200);
  });
  // A section that grows or shrinks with no scroll (a lazy section mounting under a reader who
  // just jumped to the one above it) moves which section holds the line: look again.
  if (typeof ResizeObserver !== 'undefined') {
    const ro = new ResizeObserver(schedule);
    for (const s of sections) ro.observe(s);
  }
  if (current < 0) { current = 0; render(); }
  measureHeight();
  window.addEventListener('digits-changed', () => { if (current >= 0) render(); });
  measure();
  return { el: bar, update: schedule };
}
