// Saving the reader's place (web/js/pages/resume.mjs) while sections above it still mount
// (lazy-mount.mjs keeps the place), on the fake page of fake-observers.mjs: a section that grew
// since keepPlace last looked (its ResizeObserver reports only at the browser's next frame,
// and leaving the page comes before any) must not be saved as the reader's place. The
// browser test (tests/browser/reader-path.test.mjs) keeps the reopen journey.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeObservers } from './fake-observers.mjs';
import { FakeStorage } from './fake-storage.mjs';
import { PLACE_KEY } from '../../web/js/store/reading-place.mjs';

const IDS = ['s4', 's5', 's6'];
let dom;
beforeEach(() => {
  dom = installFakeObservers(IDS);
  // no where-bar: the reading line is half a rem (8 px) from the top
  dom.computedStyle(() => ({ getPropertyValue: () => '', fontSize: '16px' }));
});
afterEach(() => { dom.uninstall(); });

// The reader at chapter 5: s5's heading on the reading line, s4 above, the page scrolled down.
async function readerAtS5() {
  const { lazyMount } = await import('../../web/js/pages/lazy-mount.mjs');
  const { setupResume } = await import('../../web/js/pages/resume.mjs');
  const [s4, s5, s6] = IDS.map((id) => dom.elements.get(id));
  Object.assign(s4, { top: -992, height: 1000 });
  Object.assign(s5, { top: 8, height: 1000 });
  Object.assign(s6, { top: 1008, height: 1000 });
  dom.window.scrollY = 5000;
  dom.scrollMovesPage({ whole: true });
  const lazy = lazyMount({ ids: IDS, mount: () => new Promise(() => {}), items: { widen() {}, buildAll() {} } });
  const storage = new FakeStorage();
  const firstScreen = Promise.resolve();
  setupResume({ lang: 'fa', ids: IDS, start: lazy.start, settle: lazy.settlePlace, ctx: { tNode: (k) => k }, firstScreen, storage });
  await firstScreen;
  await new Promise((r) => setImmediate(r));   // saving starts once the first screen is ready
  const saved = () => JSON.parse(storage.getItem(PLACE_KEY)).data.fa;
  return { s4, s5, s6, saved };
}

test('leaving the page right after a section above grew saves the section read, not the one above', async () => {
  const { s4, s5, s6, saved } = await readerAtS5();
  // s4 mounts and grows by 500 px; the ResizeObserver has not reported yet
  s4.height += 500;
  s5.top += 500;
  s6.top += 500;
  dom.window.dispatchEvent(new Event('pagehide'));
  const place = saved();
  assert.equal(place.section, 's5', `the place saved: ${JSON.stringify(place)}`);
  assert.ok(place.within < 0.01, `at the start of s5: ${place.within}`);
  assert.equal(s5.top, 8, 'the reader is back on their line');
});

test('leaving with nothing grown saves the place as it is, without scrolling', async () => {
  const { s5, saved } = await readerAtS5();
  const scrolls = dom.window.scrolls.length;
  dom.window.dispatchEvent(new Event('pagehide'));
  assert.equal(saved().section, 's5');
  assert.equal(s5.top, 8);
  assert.equal(dom.window.scrolls.length, scrolls, 'no scroll');
});
