// Where the reader stopped in the lesson, per edition: the section at the top of the screen
// and how far into it (a fraction of its height, so the place survives another screen width
// and sections that mount later). Kept apart from the practice progress (its own key): the
// place is written while the reader scrolls, and rewriting the whole progress envelope that
// often would be waste. Kept with the same care:
//   - an envelope {format, version, savedAt, checksum, data} (checksum as in progress.mjs);
//   - every record validated: a known section id, a fraction in [0, 1], a date;
//   - a copy that is not JSON, not ours or fails its checksum is refused: `notice` says
//     'place-corrupt' (the page shows `path.resume.corrupt`) and the next save replaces it;
//   - a copy from a newer version of the site is never overwritten (this visit saves nothing);
//   - storage missing or throwing: places live in memory for the visit; nothing ever throws.
// Each save reads the saved copy first and changes only its own edition's record, so a
// Persian tab and an Arabic tab do not erase each other's place.
//
// Usage: const rp = openReadingPlace({ ids: SECTIONS.map((s) => s.id) });
//   rp.get('fa') → {section, within, savedAt} | null     rp.save('fa', {section, within})
//   rp.forget('fa')     rp.notice → null | 'place-corrupt'
// Where the reader is on the page, and where a place is: placeFromRects / scrollTopFor
// (pure arithmetic on rectangles, tested in Node).

import { checksum } from './progress.mjs';

export const PLACE_KEY = 'attn-lesson.place';
export const PLACE_FORMAT = 'attn-lesson-place';
export const PLACE_VERSION = 1;
const LANG_CODE = /^[a-z]{2,3}$/;

/** A valid place record for these section ids, or null. */
export function validPlace(rec, ids) {
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) return null;
  const { section, within, savedAt } = rec;
  if (typeof section !== 'string' || !ids.includes(section)) return null;
  if (typeof within !== 'number' || !Number.isFinite(within) || within < 0 || within > 1) return null;
  if (typeof savedAt !== 'string' || !Number.isFinite(Date.parse(savedAt))) return null;
  return { section, within, savedAt };
}

/**
 * Read a saved copy. → {kind: 'missing'|'ok'|'corrupt'|'newer', places: {<lang>: place}}
 * (invalid records of a readable copy are dropped one by one, the others kept).
 */
export function readPlaces(text, ids) {
  if (text === null || text === undefined) return { kind: 'missing', places: {} };
  let env;
  try { env = JSON.parse(text); } catch { return { kind: 'corrupt', places: {} }; }
  if (!env || typeof env !== 'object' || env.format !== PLACE_FORMAT || !Number.isInteger(env.version) ||
      !env.data || typeof env.data !== 'object' || Array.isArray(env.data)) return { kind: 'corrupt', places: {} };
  if (env.version > PLACE_VERSION) return { kind: 'newer', places: {} };
  let sum;
  try { sum = checksum(JSON.stringify(env.data)); } catch { return { kind: 'corrupt', places: {} }; }
  if (env.checksum !== sum) return { kind: 'corrupt', places: {} };
  const places = {};
  for (const [lang, rec] of Object.entries(env.data)) {
    const p = LANG_CODE.test(lang) ? validPlace(rec, ids) : null;
    if (p) places[lang] = p;
  }
  return { kind: 'ok', places };
}

export function writePlaces(places, now = new Date()) {
  return JSON.stringify({
    format: PLACE_FORMAT, version: PLACE_VERSION, savedAt: now.toISOString(),
    checksum: checksum(JSON.stringify(places)), data: places,
  });
}

function usable(storage) {
  try {
    const s = storage === undefined ? globalThis.localStorage : storage;
    if (!s) return null;
    s.getItem(PLACE_KEY);
    return s;
  } catch {
    return null;
  }
}

/** Open the reading places. Never throws. opts: {storage (default localStorage), ids, now}. */
export function openReadingPlace({ storage, ids, now = () => new Date() } = {}) {
  let backend = usable(storage);
  let notice = null;
  let places = {};
  if (backend) {
    try {
      const r = readPlaces(backend.getItem(PLACE_KEY), ids);
      places = r.places;
      if (r.kind === 'corrupt') notice = 'place-corrupt';
      if (r.kind === 'newer') backend = null;     // a newer site's copy: leave it as it is
    } catch {
      backend = null;
    }
  }

  function write(lang, rec) {
    if (!backend) return;
    try {
      const saved = readPlaces(backend.getItem(PLACE_KEY), ids);
      if (saved.kind === 'newer') { backend = null; return; }
      const next = { ...(saved.kind === 'ok' ? saved.places : {}) };
      if (rec) next[lang] = rec; else delete next[lang];
      backend.setItem(PLACE_KEY, writePlaces(next, now()));
    } catch {
      backend = null;          // full or denied: this visit keeps the place in memory
    }
  }

  return {
    get notice() { return notice; },
    get persistent() { return backend !== null; },
    get(lang) { return Object.hasOwn(places, lang) ? places[lang] : null; },
    /** Save {section, within} for lang; an invalid place is ignored. → the saved record or null */
    save(lang, { section, within } = {}) {
      if (!LANG_CODE.test(String(lang))) return null;
      const rec = validPlace({ section, within: Math.min(1, Math.max(0, within)), savedAt: now().toISOString() }, ids);
      if (!rec) return null;
      const old = places[lang];
      if (old && old.section === rec.section && Math.abs(old.within - rec.within) < 1e-3) return old;
      places = { ...places, [lang]: rec };
      write(lang, rec);
      return rec;
    },
    forget(lang) {
      const { [lang]: _, ...rest } = places;
      places = rest;
      write(lang, null);
    },
  };
}

// a pixel of rounding either side of the line; the margin between two sections is at most a
// few rem (3 rem at 16 px, with room)
const EDGE_PX = 1;
const GAP_PX = 64;

/**
 * The reader's place from the sections' rectangles: the section under the line `line` px
 * below the top of the window (just under the fixed bar) and how far that line is into it.
 * sections: [{id, top, height}] in page order (top relative to the window). → {section, within} | null
 * A line in the margin between two sections, or within a pixel above the next one's top
 * (rounding of a scroll that put that heading right under the bar), is the start of the next
 * section: the reader is looking at its heading, not at the end of the one before.
 */
export function placeFromRects(sections, line) {
  const shown = sections.filter((s) => s.height > 0);
  let at = -1;
  for (let i = 0; i < shown.length; i++) {
    if (shown[i].top <= line + EDGE_PX) at = i; else break;
  }
  if (at < 0) return sections.length ? { section: sections[0].id, within: 0 } : null;
  const hit = shown[at];
  const next = shown[at + 1];
  if (next && line >= hit.top + hit.height - EDGE_PX && next.top - line <= GAP_PX) return { section: next.id, within: 0 };
  const within = Math.min(1, Math.max(0, (line - hit.top) / hit.height));
  return { section: hit.id, within };
}

/**
 * The window scroll that puts a place back under that line: the section's top in the page
 * (sectionTop = its top relative to the window + scrollY) plus `within` of its height. A place
 * at the very start of a section (within × height < line) puts the heading itself just under
 * the line, never half hidden.
 */
export function scrollTopFor({ sectionTop, height }, within, line) {
  const into = within * height;
  return Math.max(0, Math.round(sectionTop + into - line));
}
