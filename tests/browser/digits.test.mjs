// The reader's digit setting on every page (issue 11 item 6, issue 12 item 11):
// - with Latin digits on, no Persian (۰–۹) or Arabic-Indic (٠–٩) digit is left anywhere in
//   the text of the lesson or the practice page, prose digits included («۱۲۸ هزار»), after
//   every section rendered and after a few controls were used;
// - with it off, no Latin digit appears outside code (<code>, <pre>), formulas (.katex,
//   .math) and technical identifiers: an LTR isolate whose text has letters (`float32`,
//   `fp16`, `rowOffset: 2`), or an LRI…PDI isolate inside a plain string (<option>);
// - the checkbox switches the digits in place: no navigation, the same section stays on
//   screen, the URL (state and hash) unchanged.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, url, byTestId, assertNoIssues, LANGS } from './helpers.mjs';
import { waitPage, waitChange } from './lesson-helpers.mjs';

const T = { timeout: 120000 };
let b;

// (a generous wait: this machine is shared, and loading is not what is tested here)
async function open(kind, lang, rest = '') {
  const page = await newPage(b);
  await page.goto(url(`/${lang}/${kind === 'lesson' ? 'index' : 'practice'}.html${rest}`), { timeout: 60000 });
  await waitPage(page, kind, 60000);
  return page;
}
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

// Every text node (and <option>) of the body that breaks the rule; [] when none.
// latin=true: any Persian / Arabic-Indic digit. latin=false: a Latin digit outside the
// places where Latin digits belong.
function offenders(page, latin) {
  return page.evaluate((latin) => {
    for (const d of document.querySelectorAll('details')) d.open = true;
    const bad = [];
    const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (w.nextNode()) {
      const n = w.currentNode;
      const el = n.parentElement;
      if (!el || el.closest('script, style, noscript')) continue;
      let s = n.nodeValue;
      if (latin) {
        if (/[\u06f0-\u06f9\u0660-\u0669]/.test(s)) bad.push(s.trim().slice(0, 50));
        continue;
      }
      if (el.closest('code, pre, .katex, .math')) continue;
      const ltr = el.closest('[dir="ltr"]');
      if (ltr && /\p{L}/u.test(s) && !el.closest('.num, .iso')) continue;   // an identifier
      s = s.replace(/\u2066[^\u2069]*\u2069/g, '');                           // isolates of t()
      if (/[0-9]/.test(s)) bad.push(`${s.trim().slice(0, 50)} (in ${el.tagName.toLowerCase()}.${el.className})`);
    }
    return bad;
  }, latin);
}

// The section whose box holds the middle of the viewport (what the reader is looking at).
const sectionAtTop = (page) => page.evaluate(() => {
  const y = innerHeight / 2;
  for (const s of document.querySelectorAll('main > section[id]')) {
    const r = s.getBoundingClientRect();
    if (r.top <= y && r.bottom > y) return s.id;
  }
  return null;
});

async function noNavigation(page, fn) {
  const navigations = [];
  const onNav = (f) => { if (f === page.mainFrame()) navigations.push(f.url()); };
  page.on('framenavigated', onNav);
  await page.evaluate(() => { window.__sameDocument = true; });
  await fn();
  page.off('framenavigated', onNav);
  assert.deepEqual(navigations, [], 'the page did not navigate');
  assert.equal(await page.evaluate(() => window.__sameDocument), true, 'same document (no reload)');
}

// The checkbox is clicked where it is (Playwright's click() would first scroll it into view
// at the top of the page, which is not what the page does).
async function toggleDigits(page, on) {
  const cb = byTestId(page, 'latin-digits');
  await cb.evaluate((el) => el.click());
  assert.equal(await cb.isChecked(), on);
  await page.waitForFunction((on) => document.documentElement.classList.contains('latin-digits') === on, on);
}

for (const lang of LANGS) {
  test(`${lang} lesson: digits follow the setting everywhere, switched in place`, T, async () => {
    const page = await open('lesson', lang, '#s5');
    try {
      assert.deepEqual(await offenders(page, false), [], 'no Latin digit in prose with the setting off');
      // use a few controls first
      await byTestId(page, 's2-causal').check();
      const dk = byTestId(page, 's4-dk');
      const s4 = () => byTestId(page, 's4-max-weight').textContent();
      const s4Before = await s4();
      await dk.focus();
      await page.keyboard.press('Home');
      await waitChange(s4, s4Before);
      await page.evaluate(() => document.getElementById('s5').scrollIntoView());
      const y0 = await page.evaluate(() => window.scrollY);
      await page.mouse.wheel(0, 200);                     // as a reader would: the hash follows
      // The scroll spy may set #s5 already after scrollIntoView, before the wheel's scroll
      // lands (under load it landed after the place was read: "moved 199.75 px"), so wait
      // for the scroll itself, then for two frames without movement.
      await page.waitForFunction((y0) => window.scrollY >= y0 + 150, y0);
      await page.waitForFunction(() => location.hash === '#s5');
      await page.evaluate(() => new Promise((done) => {
        let last = window.scrollY, still = 0;
        const tick = () => { still = window.scrollY === last ? still + 1 : 0; last = window.scrollY; if (still >= 2) done(); else requestAnimationFrame(tick); };
        requestAnimationFrame(tick);
      }));
      const top = () => page.evaluate(() => document.getElementById('s5').getBoundingClientRect().top);
      const place = { url: page.url(), section: await sectionAtTop(page), top: await top() };
      assert.equal(place.section, 's5');

      await noNavigation(page, () => toggleDigits(page, true));
      assert.equal(page.url(), place.url, 'URL (state and hash) unchanged');
      assert.equal(await sectionAtTop(page), place.section, 'still reading the same section');
      // (scrollY itself may grow: tables above, opened by offenders(), fill in meanwhile)
      const dy = Math.abs(await top() - place.top);
      assert.ok(dy < 100, `the section stays where it was on screen (moved ${dy} px)`);
      assert.deepEqual(await offenders(page, true), [], 'no Persian / Arabic-Indic digit with Latin digits on');
      assert.match(await byTestId(page, 's2-sat-score').textContent(), /^2\.12$/);
      // controls used after the switch render Latin digits too
      const s4Latin = await s4();
      await dk.focus();
      await page.keyboard.press('End');
      await waitChange(s4, s4Latin);
      await byTestId(page, 's2-causal').uncheck();
      await byTestId(page, 's7-dtype').selectOption({ index: 1 });
      assert.deepEqual(await offenders(page, true), [], 'still none after using controls');

      await noNavigation(page, () => toggleDigits(page, false));
      assert.deepEqual(await offenders(page, false), [], 'no Latin digit in prose after switching back');
      assert.match(await byTestId(page, 's2-sat-score').textContent(), lang === 'fa' ? /^۲٫۱۲$/ : /^٢٫١٢$/);
      assertNoIssues(page);
    } finally {
      await page.evaluate(() => localStorage.clear()).catch(() => {});
      await page.close();
    }
  });

  test(`${lang} practice: digits follow the setting everywhere, switched in place`, T, async () => {
    const page = await open('practice', lang);
    try {
      assert.deepEqual(await offenders(page, false), [], 'no Latin digit with the setting off');
      await noNavigation(page, () => toggleDigits(page, true));
      assert.deepEqual(await offenders(page, true), [], 'no Persian / Arabic-Indic digit with Latin digits on');
      // interact: another exercise, a wrong answer, the next exercise, reveal a flashcard
      await byTestId(page, 'practice-exercise-select').selectOption({ index: 2 });
      await byTestId(page, 'practice-answer-input').fill('12.5');
      await byTestId(page, 'practice-check').click();
      await byTestId(page, 'practice-exercise-next').click();
      const reveal = byTestId(page, 'flashcard-reveal');
      if (await reveal.count()) await reveal.first().click();
      assert.deepEqual(await offenders(page, true), [], 'still none after using the blocks');
      await noNavigation(page, () => toggleDigits(page, false));
      assert.deepEqual(await offenders(page, false), [], 'no Latin digit after switching back');
      assertNoIssues(page);
    } finally {
      await page.evaluate(() => localStorage.clear()).catch(() => {});
      await page.close();
    }
  });
}
