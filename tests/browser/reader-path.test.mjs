// What a phone reader needs to finish the course: come back to where they stopped, see the
// core path with its reading times, and know what to look at in each large figure.
// - Resume (pages/resume.mjs, store/reading-place.mjs), one journey per edition on a 390 px
//   phone: read to a chapter and reopen the lesson; the offer names that chapter in the
//   page's language; accepting it lands on the chapter with its heading clear of the where-bar;
//   "start from the top" only closes it. A damaged saved place: a message in the page's
//   language, no offer, the page works.
// - The chooser remembers the edition chosen: it comes first, says so and holds the focus.
// - The map marks chapters 1–6 and the summary as the core path and the others optional,
//   each with the reading time that reading-time.mjs computes from the text files.
// - A "what to look at" line sits right above s2's maps.
// Screenshots (fa and ar, 390 and 1280 px) of the map and the offer: build/screenshots/
// reader-path-*.png, or READER_PATH_SHOTS=dir.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, newPage, url, byTestId, LANGS, SCREENSHOT_DIR, assertNoIssues, normaliseText, toLatinDigits } from './helpers.mjs';
import { launchPhone } from './phone.mjs';
import { DIGITS } from './lesson-helpers.mjs';
import { SECTIONS } from '../../web/js/lesson/lesson-sections.mjs';
import { chapterMinutes } from '../../web/js/lesson/reading-time.mjs';
import { loadTextDir } from '../../build-scripts/text-checks.mjs';
import { PLACE_KEY } from '../../web/js/store/reading-place.mjs';

const T = { timeout: 180000 };
const SHOTS = process.env.READER_PATH_SHOTS || SCREENSHOT_DIR;
const { texts } = loadTextDir(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../web/text'));
const plain = (s) => normaliseText(String(s).replace(/\*\*|\$|`/g, ''));

let phone, desk;
before(async () => { phone = await launchPhone({ width: 390, height: 844 }); desk = await launch(); });
after(async () => { await phone?.close(); await desk?.close(); });

const shot = async (page, name, opts = {}) => {
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `reader-path-${name}.png`), ...opts });
};

async function firstScreen(page) {
  await page.waitForFunction(() => {
    const d = document.documentElement.dataset;
    return d.firstScreen === 'ready' && d.engine === 'ready';
  }, null, { timeout: 60000 });
}

// The heading of a section against the where-bar: its top must be below the bar's bottom.
const headingPlace = (page, id) => page.evaluate((id) => {
  const hd = document.querySelector(`#${id} > h2`).getBoundingClientRect();
  const bar = document.querySelector('[data-testid="where-bar"]');
  const b = bar && !bar.hidden ? bar.getBoundingClientRect().bottom : 0;
  return { top: hd.top, bottom: hd.bottom, barBottom: b, vh: innerHeight };
}, id);

for (const lang of LANGS) {
  test(`${lang}: read to a chapter, reopen: the offer takes the reader back, heading clear of the bar`, T, async () => {
    const page = await newPage(phone);
    await page.goto(url(`/${lang}/index.html`));
    await firstScreen(page);
    await page.evaluate((k) => localStorage.removeItem(k), PLACE_KEY);
    assert.equal(await byTestId(page, 'resume-offer').count(), 0, 'no offer on a first visit');

    // read down to chapter 5 (its heading at the top of the reading area), through the
    // contents' link as a reader jumps (a script's scrollIntoView would bypass what the page
    // does for a jump while sections mount: lazy-mount.mjs)
    const target = 's5';
    const jump = (id) => page.evaluate((id) => document.querySelector(`.toc a[href="#${id}"]`).click(), id);
    await jump(target);
    await page.waitForFunction((id) => document.getElementById(id).dataset.state === 'ready', target, { timeout: 60000 });
    await jump(target);
    await page.waitForFunction((id) => document.documentElement.dataset.readingPlace === id, target);

    const title = normaliseText(await page.locator(`#${target} > h2`).textContent());
    const check = async (how) => {
      await firstScreen(page);
      const offer = byTestId(page, 'resume-offer');
      await offer.waitFor({ state: 'visible' }).catch(async (e) => {
        const st = await page.evaluate((k) => [location.href, scrollY, localStorage.getItem(k),
          document.querySelectorAll('[data-testid="resume-offer"]').length, document.querySelector('.site-header')?.innerHTML.slice(0, 300)], PLACE_KEY);
        st.push(page.issues());
        throw new Error(`${how}: no offer: ${JSON.stringify(st)}: ${e.message}`);
      });
      const text = normaliseText(await offer.textContent());
      assert.ok(text.includes(title), `${how}: the offer names «${title}»: ${text}; saved before reopening: ${JSON.stringify(before)}`);
      assert.ok(text.includes(normaliseText(texts[lang]['path.resume.go'])), `${how}: its button is in the page's language`);
      const box = await offer.boundingBox();
      assert.ok(box.y >= 0 && box.y + box.height <= 844, `${how}: the offer is on the first screen (${box.y})`);
      return offer;
    };

    // reopening the lesson (no #hash); what was saved and how tall the chapter was, for a failure's message
    const before = await page.evaluate(([k, id]) => ({ saved: localStorage.getItem(k), height: Math.round(document.getElementById(id).getBoundingClientRect().height), y: Math.round(scrollY) }), [PLACE_KEY, target]);
    await page.goto(url(`/${lang}/index.html`));
    const offer = await check('reopen');
    await shot(page, `${lang}-390-offer`);
    await byTestId(page, 'resume-go').tap();
    await offer.waitFor({ state: 'detached' });
    await page.waitForFunction((id) => document.getElementById(id).dataset.state === 'ready', target, { timeout: 60000 });
    // the place holds while the sections around it mount
    await page.waitForFunction(() => !document.documentElement.classList.contains('lesson-mounting') ||
      document.querySelectorAll('main > section[data-state="loading"]').length === 0, null, { timeout: 60000 });
    const h = await headingPlace(page, target);
    const seen = async () => JSON.stringify({ before, saved: await page.evaluate((k) => localStorage.getItem(k), PLACE_KEY),
      height: await page.evaluate((id) => Math.round(document.getElementById(id).getBoundingClientRect().height), target),
      states: await page.evaluate(() => [...document.querySelectorAll('main > section')].map((s) => `${s.id}:${s.dataset.state}`).join(' ')) });
    assert.ok(h.top >= h.barBottom - 0.5, `the heading (top ${h.top}) is clear of the bar (bottom ${h.barBottom}); ${await seen()}`);
    assert.ok(h.bottom < h.vh / 2, `the heading is near the top of the screen (${h.top} of ${h.vh}); ${await seen()}`);
    assert.equal(new URL(page.url()).hash, `#${target}`);
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H2', 'the focus is on the heading');
    await shot(page, `${lang}-390-resumed`);

    // "start from the top" closes the offer and leaves the reader at the top
    await page.goto(url(`/${lang}/index.html`));
    await check('dismiss');
    await byTestId(page, 'resume-dismiss').tap();
    assert.equal(await byTestId(page, 'resume-offer').count(), 0);
    assert.ok(await page.evaluate(() => scrollY) < 5);

    // a link into the lesson goes where it points: no offer over it
    await page.goto(url(`/${lang}/index.html#s2`));
    await firstScreen(page);
    assert.equal(await byTestId(page, 'resume-offer').count(), 0, 'no offer over a link to a section');
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: a damaged saved place is refused with a message in the page's language; the page works`, T, async () => {
    const page = await newPage(phone);
    await page.goto(url(`/${lang}/index.html`));
    await firstScreen(page);
    await page.evaluate((k) => localStorage.setItem(k, '{"format":"attn-lesson-place","version":1,"checksum":"0","data":{"'), PLACE_KEY);
    await page.reload();
    await firstScreen(page);
    const note = byTestId(page, 'resume-notice');
    await note.waitFor({ state: 'visible' });
    assert.equal(normaliseText(await note.textContent()), normaliseText(texts[lang]['path.resume.corrupt']));
    assert.equal(await byTestId(page, 'resume-offer').count(), 0);
    // reading on saves a good copy again
    await page.evaluate(() => document.getElementById('s2').scrollIntoView());
    await page.waitForFunction(() => document.documentElement.dataset.readingPlace, null);
    await page.reload();
    await firstScreen(page);
    assert.equal(await byTestId(page, 'resume-notice').count(), 0);
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: the map marks the core path with reading times computed from the text`, T, async () => {
    const dict = texts[lang];
    const ids = SECTIONS.map((s) => s.id);
    const minutes = chapterMinutes(Object.keys(dict), (k) => dict[k], ids);
    for (const width of [390, 1280]) {
      const page = await newPage(width === 390 ? phone : desk, width === 390 ? {} : { viewport: { width, height: 900 } });
      await page.goto(url(`/${lang}/index.html#intro`));
      await firstScreen(page);
      const map = byTestId(page, 'intro-map');
      await map.waitFor({ timeout: 60000 });
      const items = await map.evaluate((ol) => [...ol.children].map((li) => ({
        id: li.dataset.section, cls: li.className,
        kind: li.querySelector('.map-badge')?.textContent.trim() ?? null,
        minutes: li.querySelector('.map-time')?.dataset.minutes ?? null,
        time: li.querySelector('.map-time')?.textContent.trim() ?? null,
      })));
      for (const s of SECTIONS.filter((x) => x.id !== 'intro')) {
        const it = items.find((i) => i.id === s.id);
        assert.ok(it, `${s.id} in the map`);
        if (s.id === 'refs') { assert.equal(it.kind, null); continue; }
        assert.equal(it.kind, normaliseText(dict[s.core ? 'path.map.core' : 'path.map.optional']), `${s.id} badge`);
        assert.equal(Number(it.minutes), minutes[s.id], `${s.id}: minutes from the text`);
        assert.ok(!DIGITS[lang].other.test(it.time), `${s.id}: «${it.time}» in ${DIGITS[lang].name} digits`);
        const shown = Number(toLatinDigits(it.time).replace(/\D/g, ''));
        if (shown) assert.equal(shown, minutes[s.id], `${s.id}: the time shown`);
      }
      const lead = byTestId(page, 'intro-map-lead');
      const core = SECTIONS.filter((s) => s.core).reduce((a, s) => a + minutes[s.id], 0);
      assert.equal(Number(await lead.getAttribute('data-minutes')), core);
      assert.ok(toLatinDigits(await lead.textContent()).includes(String(core)), 'the lead gives the core path\'s total');
      await page.evaluate(() => document.querySelector('[data-testid="intro-map"]').previousElementSibling.previousElementSibling.scrollIntoView());
      await shot(page, `${lang}-${width}-map`);
      await page.close();
    }
  });

  test(`${lang}: a "what to look at" line right above each of s2's maps`, T, async () => {
    const page = await newPage(desk);
    await page.goto(url(`/${lang}/index.html#s2`));
    await firstScreen(page);
    await page.waitForFunction(() => document.getElementById('s2').dataset.state === 'ready', null, { timeout: 60000 });
    for (const id of ['s2-scores', 's2-weights', 's2-out']) {
      const prev = await byTestId(page, id).evaluate((el) => ({ id: el.previousElementSibling?.dataset.testid, text: el.previousElementSibling?.textContent }));
      assert.equal(prev.id, `look-${id}`);
      const start = plain(texts[lang][`path.look.${id}`]).split(' ').slice(0, 3).join(' ');
      assert.ok(normaliseText(prev.text).startsWith(start), `«${prev.text}» starts with «${start}»`);
    }
    await page.close();
  });
}

test('the chooser remembers the edition chosen', T, async () => {
  for (const lang of LANGS) {
    const page = await newPage(desk);
    // the chooser's script runs after its first paint and says so
    const chooserReady = () => page.waitForFunction(() => document.documentElement.dataset.chooser === 'ready');
    await page.goto(url('/'));
    await chooserReady();
    await byTestId(page, `choose-${lang}`).click();
    await page.waitForURL(new RegExp(`/${lang}/`));
    await firstScreen(page);
    await page.goto(url('/'));
    await chooserReady();
    const first = await page.evaluate(() => document.querySelector('[data-testid="chooser"] li a').dataset.testid);
    assert.equal(first, `choose-${lang}`, 'the chosen edition comes first');
    assert.ok(await byTestId(page, `remembered-${lang}`).isVisible());
    for (const other of LANGS.filter((l) => l !== lang)) assert.ok(!(await byTestId(page, `remembered-${other}`).isVisible()));
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), `choose-${lang}`);
    await shot(page, `chooser-${lang}`);
    assertNoIssues(page);
    await page.close();
  }
});
