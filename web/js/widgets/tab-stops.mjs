// Tab into what is not built yet: a lesson part still to mount (pages/lazy-mount.mjs) and an
// item of a practice block still to build (widgets/lazy-item.mjs). Shared by both so that a
// held Tab walks through the page in order while they build.

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
export function holdTabWhileNextMounts(ids, start) {
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
export function keyboardStop(line, ready, partOf) {
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
