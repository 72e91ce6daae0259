// The line the reader reads from, just under the where-bar, and the reader's place on it now
// (the section under it and how far into it): what the resume offer saves (resume.mjs).

import { placeFromRects } from '../store/reading-place.mjs';

/** px below the window's top: the bar's height (measured by where-bar.mjs, --where-h) plus
 * the same half rem as the sections' scroll-margin-top. */
export function readingLine() {
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

/** The section under the reading line and how far into it: {section, within} | null. */
export const placeNow = (ids) => placeFromRects(sectionRects(ids), readingLine());
