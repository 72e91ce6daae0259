// Where the reader stopped (store/reading-place.mjs): one record per edition, in a versioned
// envelope with a checksum; invalid records dropped, a damaged copy refused with a notice and
// replaced by the next save, a newer site's copy never overwritten, storage that throws never
// reaching the page; and the arithmetic that turns the sections' rectangles into a place and a
// place back into a scroll position.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  openReadingPlace, readPlaces, writePlaces, validPlace, placeFromRects, scrollTopFor, PLACE_KEY, PLACE_VERSION,
} from '../../web/js/store/reading-place.mjs';
import { KEY as PROGRESS_KEY } from '../../web/js/store/progress.mjs';
import { SECTIONS } from '../../web/js/lesson/lesson-sections.mjs';
import { FakeStorage } from './fake-storage.mjs';

const ids = SECTIONS.map((s) => s.id);
const NOW = new Date('2026-12-05T10:00:00.000Z');
const open = (storage) => openReadingPlace({ storage, ids, now: () => NOW });

test('a saved place comes back per edition, in a fresh store on the same storage', () => {
  const storage = new FakeStorage();
  const a = open(storage);
  assert.equal(a.get('fa'), null);
  a.save('fa', { section: 's5', within: 0.25 });
  a.save('ar', { section: 'heads', within: 0 });
  const b = open(storage);
  assert.deepEqual(b.get('fa'), { section: 's5', within: 0.25, savedAt: NOW.toISOString() });
  assert.deepEqual(b.get('ar'), { section: 'heads', within: 0, savedAt: NOW.toISOString() });
  assert.equal(b.notice, null);
  assert.equal(storage.getItem(PROGRESS_KEY), null, 'the practice progress is not touched');
});

test('two tabs of two editions keep each other\'s place (each save merges the saved copy)', () => {
  const storage = new FakeStorage();
  const fa = open(storage), ar = open(storage);
  fa.save('fa', { section: 's3', within: 0.5 });
  ar.save('ar', { section: 's7', within: 0.1 });
  const c = open(storage);
  assert.equal(c.get('fa').section, 's3');
  assert.equal(c.get('ar').section, 's7');
  fa.forget('fa');
  assert.equal(open(storage).get('fa'), null);
  assert.equal(open(storage).get('ar').section, 's7');
});

test('invalid places are not saved: unknown section, fraction out of range clamped, bad language', () => {
  const storage = new FakeStorage();
  const p = open(storage);
  assert.equal(p.save('fa', { section: 'toString', within: 0 }), null);
  assert.equal(p.save('fa', { section: 's1', within: NaN }), null);
  assert.equal(p.save('../x', { section: 's1', within: 0 }), null);
  assert.equal(p.save('fa', { section: 's1', within: 7 }).within, 1);
  assert.equal(validPlace({ section: 's1', within: 0.5, savedAt: 'yesterday' }, ids), null);
  assert.equal(validPlace([], ids), null);
});

test('a damaged copy is refused with a notice, the page goes on, and the next save replaces it', () => {
  for (const text of ['{not json', JSON.stringify({ format: 'other', version: 1, data: {} }), 'null', '"x"']) {
    const storage = new FakeStorage();
    storage.setItem(PLACE_KEY, text);
    const p = open(storage);
    assert.equal(p.notice, 'place-corrupt', text);
    assert.equal(p.get('fa'), null);
    p.save('fa', { section: 's2', within: 0 });
    const again = open(storage);
    assert.equal(again.notice, null);
    assert.equal(again.get('fa').section, 's2');
  }
});

test('a hand-edited copy fails its checksum and is refused', () => {
  const storage = new FakeStorage();
  open(storage).save('fa', { section: 's2', within: 0.3 });
  storage.setItem(PLACE_KEY, storage.getItem(PLACE_KEY).replace('"s2"', '"s9"'));
  const p = open(storage);
  assert.equal(p.notice, 'place-corrupt');
  assert.equal(p.get('fa'), null);
});

test('invalid records of a readable copy are dropped one by one, the others kept', () => {
  const text = writePlaces({
    fa: { section: 's4', within: 0.2, savedAt: NOW.toISOString() },
    ar: { section: 'nowhere', within: 0.2, savedAt: NOW.toISOString() },
    '__proto__x': { section: 's4', within: 0.2, savedAt: NOW.toISOString() },
  }, NOW);
  const r = readPlaces(text, ids);
  assert.equal(r.kind, 'ok');
  assert.deepEqual(Object.keys(r.places), ['fa']);
});

test('a copy saved by a newer site is left as it is', () => {
  const storage = new FakeStorage();
  const newer = JSON.stringify({ format: 'attn-lesson-place', version: PLACE_VERSION + 1, checksum: 'x', data: { fa: 'future' } });
  storage.setItem(PLACE_KEY, newer);
  const p = open(storage);
  assert.equal(p.notice, null);
  assert.equal(p.persistent, false);
  p.save('fa', { section: 's1', within: 0 });
  assert.equal(p.get('fa').section, 's1', 'kept in memory for this visit');
  assert.equal(storage.getItem(PLACE_KEY), newer);
});

test('storage that throws or is full never reaches the page', () => {
  const blocked = open(new FakeStorage({ throwOnGet: true }));
  assert.equal(blocked.persistent, false);
  assert.equal(blocked.save('fa', { section: 's1', within: 0 }).section, 's1');
  const full = open(new FakeStorage({ quota: 10 }));
  assert.doesNotThrow(() => full.save('fa', { section: 's1', within: 0 }));
  assert.equal(full.get('fa').section, 's1');
  assert.equal(full.persistent, false);
  assert.doesNotThrow(() => openReadingPlace({ storage: null, ids }).save('fa', { section: 's1', within: 0 }));
});

test('placeFromRects: the section under the reading line and how far into it', () => {
  const rects = [{ id: 'intro', top: -900, height: 500 }, { id: 's1', top: -400, height: 800 }, { id: 's2', top: 400, height: 900 }];
  assert.deepEqual(placeFromRects(rects, 40), { section: 's1', within: 440 / 800 });
  assert.deepEqual(placeFromRects(rects, 400), { section: 's2', within: 0 });
  // above the first section (the header and contents): the start of the first section
  assert.deepEqual(placeFromRects([{ id: 'intro', top: 300, height: 500 }], 40), { section: 'intro', within: 0 });
  assert.equal(placeFromRects([], 40), null);
});

test('placeFromRects: a line in the margin between sections, or a pixel above a heading, is the next section', () => {
  // s1 ends at 380, s2 starts at 400 (a 20 px margin)
  const rects = [{ id: 's1', top: -420, height: 800 }, { id: 's2', top: 400, height: 900 }];
  assert.deepEqual(placeFromRects(rects, 390), { section: 's2', within: 0 });
  assert.deepEqual(placeFromRects(rects, 399.4), { section: 's2', within: 0 });
  // a scroll that put s2's heading under the bar, rounded half a pixel low
  assert.deepEqual(placeFromRects([{ id: 's1', top: -800, height: 1200.5 }, { id: 's2', top: 400.5, height: 900 }], 400),
    { section: 's2', within: 0 });
  // inside s1, well before its end: still s1
  assert.equal(placeFromRects(rects, 300).section, 's1');
  // a last section read to its end stays that section
  assert.deepEqual(placeFromRects([{ id: 's1', top: -1000, height: 800 }], 40), { section: 's1', within: 1 });
});

test('scrollTopFor puts the place back under the reading line (a section start: its heading just below the bar)', () => {
  // section at page y 5000, 1000 px tall; the line 45 px below the window's top
  assert.equal(scrollTopFor({ sectionTop: 5000, height: 1000 }, 0, 45), 4955);
  assert.equal(scrollTopFor({ sectionTop: 5000, height: 1000 }, 0.5, 45), 5455);
  assert.equal(scrollTopFor({ sectionTop: 10, height: 100 }, 0, 45), 0);
  // round trip: the place read at that scroll is the place saved
  const y = scrollTopFor({ sectionTop: 5000, height: 1000 }, 0.37, 45);
  const back = placeFromRects([{ id: 's4', top: 5000 - y, height: 1000 }], 45);
  assert.equal(back.section, 's4');
  assert.ok(Math.abs(back.within - 0.37) < 1e-3);
});
