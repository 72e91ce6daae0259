// "Continue where you stopped": the lesson page remembers, per edition, the section at the
// top of the screen and how far into it the reader was (store/reading-place.mjs), and on the
// next visit offers to go back there, above the title, where a phone shows it on the first
// screen. The offer is made when the URL has no #hash (a #hash, from a link or a reload, takes
// the page to its section itself). Accepting mounts that section, scrolls to the place with the
// heading clear of the where-bar, and moves the focus to the heading; "start from the top"
// only closes the offer. The place is saved when the reader scrolls (once the page is still
// for a moment) and when the page is hidden or left.
// Hooks: data-testid resume-offer, resume-go, resume-dismiss, resume-notice (a saved place that
// could not be read); html[data-reading-place] = the section last saved.

import { h } from '../dom.mjs';
import { openReadingPlace, placeFromRects, scrollTopFor } from '../store/reading-place.mjs';

// Just under the where-bar: the line the reader reads from (the bar's height, measured by
// where-bar.mjs, plus the same half rem as the sections' scroll-margin-top).
function readingLine() {
  const root = document.documentElement;
  const bar = parseFloat(getComputedStyle(root).getPropertyValue('--where-h')) || 0;
  const rem = parseFloat(getComputedStyle(root).fontSize) || 16;
  return bar + rem / 2;
}

function sectionRects(ids) {
  return ids.map((id) => document.getElementById(id)).filter(Boolean).map((s) => {
    const r = s.getBoundingClientRect();
    return { id: s.id, top: r.top, height: r.height };
  });
}

/**
 * lang: the page's edition; ids: the sections in page order; start(id) → Promise (mounts a
 * section: lazy-mount's start); settle() (lazy-mount's settlePlace: called before the page
 * scrolls to the saved place and before the place is measured to be saved); ctx: {t, tNode};
 * firstScreen: a Promise (saving starts after it).
 */
export function setupResume({ lang, ids, start, settle = () => {}, ctx, firstScreen, storage }) {
  const places = openReadingPlace({ storage, ids });
  const saved = places.get(lang);
  const header = document.querySelector('.site-header');
  const anchor = header?.querySelector('.site-bar');
  const put = (node) => (anchor ? anchor.after(node) : header?.prepend(node));

  if (places.notice) {
    const note = h('p', { class: 'resume-notice', role: 'status', testid: 'resume-notice' }, ctx.tNode('path.resume.corrupt'));
    put(note);
  }

  const hash = location.hash.slice(1);
  const worthOffering = saved && (saved.section !== ids[0] || saved.within > 0.05);
  // While the offer waits for an answer, the saved place stays as it is: the page's own moves
  // (sections mounting, the offer itself pushing the text down) are not the reader's
  // reading. The reader's own scrolling (wheel, touch, keys) or an answer ends the wait.
  let waiting = false;
  // a #hash (a link, or a reload of the page the scroll spy keeps at the section read) takes
  // the page there itself: an offer at the top would be off the screen
  if (worthOffering && !hash) {
    put(offer(saved));
    waiting = true;
    const stop = () => { waiting = false; };
    for (const ev of ['wheel', 'touchmove', 'keydown']) window.addEventListener(ev, stop, { passive: true, once: true });
  }

  function offer(place) {
    const sec = document.getElementById(place.section);
    const title = sec?.querySelector(':scope > h2')?.textContent.trim() || place.section;
    const go = h('button', { type: 'button', class: 'btn', testid: 'resume-go' }, ctx.tNode('path.resume.go'));
    const no = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'resume-dismiss' }, ctx.tNode('path.resume.dismiss'));
    const text = h('p', { class: 'resume-text', id: 'resume-text' }, ctx.tNode('path.resume.offer', { title }));
    const box = h('div', { class: 'resume-offer', role: 'region', 'aria-labelledby': 'resume-text', testid: 'resume-offer' },
      text, h('div', { class: 'resume-actions' }, go, no));
    go.addEventListener('click', async () => {
      go.disabled = true;
      waiting = false;
      await start(place.section);
      box.remove();
      goTo(place);
    });
    no.addEventListener('click', () => { waiting = false; box.remove(); });
    return box;
  }

  function goTo(place) {
    const sec = document.getElementById(place.section);
    if (!sec) return;
    settle();
    const line = readingLine();
    const r = sec.getBoundingClientRect();
    const top = scrollTopFor({ sectionTop: r.top + window.scrollY, height: r.height }, place.within, line);
    window.scrollTo({ top, behavior: 'instant' });
    history.replaceState(history.state, '', `${location.pathname}${location.search}#${place.section}`);
    const heading = sec.querySelector(':scope > h2');
    if (heading) {
      if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }
  }

  // Saving: after the reader's scrolling rests, and when the page goes away.
  let timer = null;
  let ready = false;
  // settle() first: a section above may have grown since keepPlace last looked (its
  // ResizeObserver reports at the next frame, and leaving the page comes before any), so the
  // reader's section stands lower than where they read; measured as it is, the place saved was
  // the section above (a reader at chapter 5 who left while chapter 4 mounted was offered 4).
  const save = () => {
    if (!ready || waiting) return;
    settle();
    const place = placeFromRects(sectionRects(ids), readingLine());
    if (place && places.save(lang, place)) document.documentElement.dataset.readingPlace = place.section;
  };
  Promise.resolve(firstScreen).then(() => { ready = true; });
  window.addEventListener('scroll', () => { clearTimeout(timer); timer = setTimeout(save, 400); }, { passive: true });
  window.addEventListener('pagehide', save);
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') save(); });
  return { places, saved, save };
}
