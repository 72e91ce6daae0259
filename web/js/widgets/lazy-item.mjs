// Items inside a part (a practice block's six experiments or its myths): a part on the first
// screen shows one or two of them, and building the others with it was most of the load's
// blocking time (their text, formulas and choices, then laying them out). buildWhenNear()
// returns a placeholder that the item replaces when it nears the screen, by the same margins
// as the parts (pages/lazy-mount.mjs: none before the reader's first scroll, then a screen
// either way); lazy-mount's mountAll() builds every item left. Without IntersectionObserver
// the item is built at once. The placeholder (.lazy-item, practice.css) holds about an item's height.
//
// Usage: import { buildWhenNear } from '../../widgets/lazy-item.mjs';
//        list.append(buildWhenNear(() => makeItem(), (err) => errorNode(err)));
// The page has one set of items (pageItems); createLazyItems() makes another (tests).

import { keyboardStop } from './tab-stops.mjs';
import { nearWatcher } from './near-watcher.mjs';

export function createLazyItems() {
  const pending = new Map();   // placeholder → [build(), failed(err)]
  const near = nearWatcher((entries) => { for (const e of entries) if (e.isIntersecting) buildItem(e.target); }, '0px');

  function buildItem(placeholder) {
    const [build, failed] = pending.get(placeholder) || [];
    if (!build) return null;
    pending.delete(placeholder);
    near.unwatch(placeholder);
    // one item failing leaves the others to build; it shows failed(err) instead, as a part does
    let made = null;
    try { made = build(); placeholder.replaceWith(made); } catch (err) {
      console.error('item failed', err);
      made = failed ? failed(err) : null;
      if (made) placeholder.replaceWith(made);
    }
    return made;
  }

  return {
    /**
     * An element that becomes build() when it nears the screen (build() returns the item's
     * element; if it throws, failed(err) returns what shows instead).
     */
    buildWhenNear(build, failed) {
      if (typeof IntersectionObserver === 'undefined') return build();
      const placeholder = document.createElement('div');
      placeholder.className = 'lazy-item';
      pending.set(placeholder, [build, failed]);
      near.watch(placeholder);
      // reached by Tab, it is built at once and the focus enters it (widgets/tab-stops.mjs)
      let made = null;
      keyboardStop(placeholder, () => { made = buildItem(placeholder); }, () => made);
      return placeholder;
    },
    /** Builds every item still waiting (printing, finding in the page, mountAll). */
    buildAll() { for (const ph of [...pending.keys()]) buildItem(ph); },
    /** The items' look-ahead margin (lazy-mount widens it at the reader's first scroll). */
    widen(margin) { near.widen(margin); },
  };
}

export const pageItems = createLazyItems();
export const buildWhenNear = (build, failed) => pageItems.buildWhenNear(build, failed);
