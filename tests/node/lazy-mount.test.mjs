// The order of web/js/pages/lazy-mount.mjs (when a part starts to mount, when it has settled,
// when the first screen is ready), driven step by step with fake observers
// (fake-observers.mjs): an observer reports only when the test says so, so each race that
// CI found under load is replayed exactly. The browser test (tests/browser/lazy-mount.test.mjs)
// keeps what needs a real page: scrolling, the #hash, the reader's place.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeObservers } from './fake-observers.mjs';

const IDS = ['intro', 's1', 's2', 's3'];
const WIDE = '100% 0px 100% 0px';
let dom;
let fresh = 0;
// A fresh copy of the module each test, with a set of items of its own (the page's set,
// widgets/lazy-item.mjs pageItems, keeps its observer for the page's life).
async function load() {
  const n = ++fresh;
  const m = await import(`../../web/js/pages/lazy-mount.mjs?copy=${n}`);
  const items = (await import(`../../web/js/widgets/lazy-item.mjs?copy=${n}`)).createLazyItems();
  return { ...m, lazyMount: (o) => m.lazyMount({ items, ...o }), buildWhenNear: items.buildWhenNear };
}
beforeEach(() => { dom = installFakeObservers(IDS); });
afterEach(() => { dom.uninstall(); });

// Mounts that the test finishes itself: mounts.started lists ids in order; finish(id) settles one.
function mounts() {
  const started = [];
  const finishers = new Map();
  return {
    started,
    mount: (id) => { started.push(id); return new Promise((resolve) => finishers.set(id, resolve)); },
    finish: (id) => finishers.get(id)(),
  };
}
// Every promise callback due now has run (setImmediate comes after the microtasks).
const drain = () => new Promise((r) => setImmediate(r));
// Whether p has resolved by now.
async function resolved(p) {
  let done = false;
  p.then(() => { done = true; });
  await drain();
  return done;
}

test('the parts wait for the observer: only those near the screen start, each once', async () => {
  const { lazyMount } = await load();
  const m = mounts();
  const lazy = lazyMount({ ids: IDS, mount: m.mount });
  for (const id of IDS) assert.equal(dom.elements.get(id).dataset.state, 'pending');
  await drain();
  assert.deepEqual(m.started, [], 'nothing starts before the observer has looked');
  dom.report(['intro', 's1']);
  await drain();
  assert.deepEqual(m.started, ['intro', 's1']);
  assert.equal(await resolved(lazy.firstScreen), false, 'the first screen waits for its parts');
  m.finish('intro');
  assert.equal(await resolved(lazy.firstScreen), false);
  m.finish('s1');
  assert.equal(await resolved(lazy.firstScreen), true, 'ready once the parts on it settled');
  assert.equal(await resolved(lazy.all), false, 's2 and s3 are not built yet');
  lazy.start('s1');
  lazy.mountAll();
  await drain();
  assert.deepEqual(m.started, ['intro', 's1', 's2', 's3'], 'mountAll starts the rest, none twice');
  m.finish('s2'); m.finish('s3');
  assert.equal(await resolved(lazy.all), true);
  assert.ok(!dom.classes.has('lesson-mounting'), 'the page takes its scroll anchoring back');
});

test('urgent parts start at once, before the observer looks; the first screen waits for them too', async () => {
  const { lazyMount } = await load();
  const m = mounts();
  const lazy = lazyMount({ ids: IDS, mount: m.mount, urgent: ['s3'] });
  await drain();
  assert.deepEqual(m.started, ['s3']);
  dom.report(['intro']);
  await drain();
  m.finish('intro');
  assert.equal(await resolved(lazy.firstScreen), false, 'the urgent s3 is on the first screen');
  m.finish('s3');
  assert.equal(await resolved(lazy.firstScreen), true);
});

// A part started before the observer's first report (mountAll, or urgent) was unobserved, so
// the report never came when every part had started: the first screen waited forever.
test('parts started before the first report stay observed: the first screen waits only for its own parts', async () => {
  const { lazyMount } = await load();
  const m = mounts();
  const lazy = lazyMount({ ids: IDS, mount: m.mount });
  lazy.mountAll();
  await drain();
  assert.deepEqual(m.started, IDS);
  dom.report(['intro']);
  m.finish('intro');
  assert.equal(await resolved(lazy.firstScreen), true,
    'the report came, and the first screen is ready with intro while the parts below still mount');
  assert.equal(await resolved(lazy.all), false);
});

// mountAll right after load settled every part before the observer's first report; `all` then
// stopped the observer, so the report the first screen waited for never came.
test('every part settled before the first report: the first screen is ready all the same', async () => {
  const { lazyMount } = await load();
  const lazy = lazyMount({ ids: IDS, mount: () => {} });
  lazy.mountAll();
  await lazy.all;
  dom.report(['intro']);   // the observer was stopped: nothing comes
  assert.equal(await resolved(lazy.firstScreen), true);
});

// An item built after the reader's first scroll was watched with the first margin (none), so it
// looked ahead by nothing until the next scroll.
test("the items' observer takes the look-ahead margin from the first scroll, whenever the item came", async () => {
  const { lazyMount, buildWhenNear } = await load();
  lazyMount({ ids: IDS, mount: () => {} });
  const before = buildWhenNear(() => 'early');
  assert.equal(dom.observerOf(before).rootMargin, '0px', 'before the first scroll: no look-ahead');
  dom.scroll();
  assert.equal(dom.observerOf(before).rootMargin, WIDE, 'watched again with the wide margin');
  const after = buildWhenNear(() => 'late');
  assert.equal(dom.observerOf(after).rootMargin, WIDE, 'an item made after the scroll looks ahead too');
  assert.equal(dom.observerOf(dom.elements.get('s2')).rootMargin, WIDE, 'so do the parts');
  dom.report([], [after]);
  assert.equal(after.replacedBy, 'late');
  assert.equal(before.replacedBy, null, 'an item not near stays a placeholder');
});

test('an item whose build throws shows failed(err) in its place; the others still build', async () => {
  const { lazyMount, buildWhenNear } = await load();
  const lazy = lazyMount({ ids: IDS, mount: () => {} });
  const errors = [];
  const consoleError = console.error;
  console.error = (...a) => errors.push(a);
  try {
    const ok1 = buildWhenNear(() => 'one');
    const bad = buildWhenNear(() => { throw new Error('broken item'); }, (err) => `failed: ${err.message}`);
    const ok2 = buildWhenNear(() => 'two');
    await lazy.mountAll();
    assert.deepEqual([ok1.replacedBy, bad.replacedBy, ok2.replacedBy], ['one', 'failed: broken item', 'two']);
    assert.equal(errors.length, 1);
  } finally {
    console.error = consoleError;
  }
});

test('without IntersectionObserver every part mounts at once and items are built in place', async () => {
  delete globalThis.IntersectionObserver;
  const { lazyMount, buildWhenNear } = await load();
  const m = mounts();
  const lazy = lazyMount({ ids: IDS, mount: m.mount });
  await drain();
  assert.deepEqual(m.started, IDS);
  for (const id of IDS) m.finish(id);
  assert.equal(await resolved(lazy.firstScreen), true);
  assert.equal(buildWhenNear(() => 'now'), 'now');
});

test('a section above the reader that grows scrolls the page by its growth (the reader keeps their place)', async () => {
  const { lazyMount } = await load();
  const [intro, s1] = [dom.elements.get('intro'), dom.elements.get('s1')];
  dom.window.scrollY = 600;               // the reader scrolled down to s1
  intro.top = -600; intro.height = 500;   // above the screen
  s1.top = -100; s1.height = 900;         // the reader's section: its bottom is below a quarter down
  lazyMount({ ids: IDS, mount: () => {} });
  intro.height = 800; s1.top = 200;       // intro grew by 300 px and pushed s1 down
  dom.resizeObservers[0].callback([]);
  assert.deepEqual(dom.window.scrolls, [900]);
});

test('growths under a pixel add up: the page scrolls once they reach one, so the reader\'s place never drifts', async () => {
  const { lazyMount } = await load();
  const [intro, s1] = [dom.elements.get('intro'), dom.elements.get('s1')];
  dom.window.scrollY = 600;
  intro.top = -600; intro.height = 500;
  s1.top = -100; s1.height = 900;
  dom.scrollMovesPage();
  lazyMount({ ids: IDS, mount: () => {} });
  for (let i = 0; i < 10; i++) {          // intro grows by 0.4 px ten times: 4 px in all
    intro.height += 0.4; s1.top += 0.4;
    dom.resizeObservers[0].callback([]);
  }
  assert.ok(Math.abs(s1.top - -100) < 1, `s1 stays within a pixel of its place: ${s1.top}`);
  assert.ok(Math.abs(dom.window.scrollY - 604) < 1, `the page scrolled by the 4 px: ${dom.window.scrollY}`);
});

test('the page scrolls by whole pixels: the fraction each scroll leaves is carried, so many growths do not drift the place', async () => {
  const { lazyMount } = await load();
  const [intro, s1] = [dom.elements.get('intro'), dom.elements.get('s1')];
  dom.window.scrollY = 600;
  intro.top = -600; intro.height = 500;
  s1.top = -100; s1.height = 900;
  dom.scrollMovesPage({ whole: true });   // a browser at device scale 1 lands on whole pixels
  lazyMount({ ids: IDS, mount: () => {} });
  for (let i = 0; i < 10; i++) {          // intro grows by 100.4 px ten times
    intro.height += 100.4; s1.top += 100.4;
    dom.resizeObservers[0].callback([]);
  }
  assert.ok(Math.abs(s1.top - -100) < 1, `s1 stays within a pixel of its place: ${s1.top}`);
});

test('after the reader jumps down, the section they jumped to is the one kept in place', async () => {
  const { lazyMount } = await load();
  const [intro, s1, s2, s3] = IDS.map((id) => dom.elements.get(id));
  const jump = dom.scrollMovesPage();
  dom.window.scrollY = 10;                // the reader moved a little: intro is their place
  intro.top = 90; intro.height = 1000;
  s1.top = 1090; s1.height = 1000;
  s2.top = 2090; s2.height = 1000;
  s3.top = 3090; s3.height = 1000;
  lazyMount({ ids: IDS, mount: () => {} });
  // a jump to s3 (a link, scrollIntoView): the page scrolls and says so
  jump(3000);
  dom.window.dispatchEvent(new Event('scroll'));
  s1.height += 300; s2.top += 300; s3.top += 300;   // s1, above the reader, mounts and grows
  dom.resizeObservers[0].callback([]);
  assert.equal(s3.top, 90, 's3 stays where the jump put it');
});

// The reader in s1 (the page scrolled 1,010 px, intro above the screen, four 1,000 px sections),
// keepPlace started; jump(d) is the browser's own scroll.
async function readerInS1() {
  const { lazyMount } = await load();
  const [intro, s1, s2, s3] = IDS.map((id) => dom.elements.get(id));
  const jump = dom.scrollMovesPage();
  dom.window.scrollY = 1010;
  intro.top = -910; intro.height = 1000;
  s1.top = 90; s1.height = 1000;
  s2.top = 1090; s2.height = 1000;
  s3.top = 2090; s3.height = 1000;
  lazyMount({ ids: IDS, mount: () => {} });
  return { intro, s1, s2, s3, jump };
}
// A same-page link as lazy-mount sees the click's target (href: its getAttribute, if given).
const sameLink = (href) => {
  const link = { closest: (sel) => (sel === 'a[href^="#"]' ? link : null) };
  if (href) link.getAttribute = (k) => (k === 'href' ? href : null);
  return link;
};

// A link's jump lands where the browser computes from the layout at the click, growth
// included; the scroll event that follows must not move the reader by that growth again
// (the kind of double move that would explain reader-path's resume failure, chapter 5's
// heading 2,276 px above the screen).
test('a section that grew just before a same-page link is clicked: the section jumped to stays where the link put it', async () => {
  const { intro, s1, s2, s3, jump } = await readerInS1();
  // intro grows by 300 px; in the same task, before any observer reports, the reader clicks a
  // link to s3 (the contents): the click's listeners run, then the browser jumps to s3 as laid out now
  intro.height += 300; s1.top += 300; s2.top += 300; s3.top += 300;
  dom.click(sameLink());
  jump(s3.top - 90);                      // the link's jump: s3's heading at 90 px
  dom.window.dispatchEvent(new Event('scroll'));
  dom.resizeObservers[0].callback([]);    // the observer reports intro's growth after
  assert.equal(s3.top, 90, 's3 stays where the link put it');
  // a click elsewhere (not a same-page link) is not a jump: nothing is scrolled for it
  const scrolled = dom.window.scrolls.length;
  dom.click({ closest: () => null });
  assert.equal(dom.window.scrolls.length, scrolled);
});

// Chromium scrolls to a link's target only at its next frame, with the layout as it is then:
// a section that grows between the click and that frame is already taken in by the jump
// (reader-path under load: s4 grew 337 px in between, and chapter 5's heading ended 337 px
// above the screen, the growth counted twice).
test('a section that grows between a link\'s click and the jump: the target ends under the scroll padding', async () => {
  dom.computedStyle((el) => ({ scrollPaddingTop: el === document.documentElement ? '45px' : '', scrollMarginTop: '0px' }));
  const { intro, s1, s2, s3, jump } = await readerInS1();
  dom.click(sameLink('#s3'));             // nothing has grown yet
  intro.height += 337; s1.top += 337; s2.top += 337; s3.top += 337;   // a mount task, before the next frame
  jump(s3.top - 45);                      // the browser's jump, at that frame: s3 under the padding
  dom.window.dispatchEvent(new Event('scroll'));
  assert.equal(s3.top, 45, `s3 where the jump put it: ${s3.top}`);
  s1.height += 500; s2.top += 500; s3.top += 500;   // later, s1 grows too
  dom.resizeObservers[0].callback([]);
  assert.equal(s3.top, 45, `s3 kept there: ${s3.top}`);
});

test('a link whose own handler cancels the jump (the where-bar\'s "top") is not taken for a jump to its target', async () => {
  const { s3, jump } = await readerInS1();
  dom.click(sameLink('#s3'));
  const done = new Event('click', { cancelable: true });
  done.preventDefault();                  // its handler went to the top of the page itself
  dom.window.dispatchEvent(done);
  jump(-1010);
  dom.window.dispatchEvent(new Event('scroll'));
  assert.equal(dom.window.scrollY, 0, 'the page stays at the top');
  assert.equal(s3.top, 3100, 's3 was not scrolled to');
});

test('at the very top of the page, what grows there stays in view (no scroll away from the resume offer)', async () => {
  const { lazyMount } = await load();
  const [intro, s1] = [dom.elements.get('intro'), dom.elements.get('s1')];
  dom.window.scrollY = 0;
  intro.top = 150; intro.height = 600;    // under the header, on the first screen
  s1.top = 750; s1.height = 900;
  lazyMount({ ids: IDS, mount: () => {} });
  intro.top = 254; s1.top = 854;          // the offer (104 px) went into the header above intro
  dom.resizeObservers[0].callback([]);
  assert.deepEqual(dom.window.scrolls, []);
});
