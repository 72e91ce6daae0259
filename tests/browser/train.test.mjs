// Chapter 14 (train), both editions, as a reader uses it: a few training steps in the
// chapter's own worker change the shown loss to the engine's (the held-out loss is evaluated
// again here through the same worker), pause and resume, a reload brings the run back at its
// step, a damaged saved run (garbage written to IndexedDB from the test) is answered in the
// page's language while the rest works, the tile-by-tile backward steps to its end, axe finds
// nothing, and a 360 px phone does not scroll sideways. Every number and the save format are
// checked in Node (tests/node/train-compute.test.mjs). Waits only on data-* states.
// Screenshots: build/screenshots/train-<lang>-<width>.png.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, byTestId, assertNoIssues, axeViolations, formatAxe, toLatinDigits, REPO, SCREENSHOT_DIR, elementShot } from './helpers.mjs';
import { openLesson, waitSection, DIGITS } from './lesson-helpers.mjs';
import { launchPhone, overflowPx } from './phone.mjs';

const T = { timeout: 240000 };
const TEXT = Object.fromEntries(['fa', 'ar'].map((l) => [l, JSON.parse(readFileSync(path.join(REPO, `web/text/${l}/train.json`), 'utf8'))]));
const head = (s) => s.split(/[[$`*(]/)[0].trim();
const plain = (s) => toLatinDigits(s).replace(/\u066b/g, '.').replace(/[\u066c,\u200e\u200f\u061c\u2066-\u2069]/g, '');

let b;
let phone;   // one 360 px phone for both editions (the runs are stored per language), launched by the first phone test
test.before(async () => { b = await launch(); });
test.after(async () => { await b?.close(); await phone?.close(); });

// After a reload (or a shared link) the chapter alone is waited for, as openLesson does for a
// #train query: waiting for every section built chapter 13 too (it loads a model and scores
// it), the heaviest work of the page, in the same two cores as the run being checked.
const reloadTrain = async (page) => {
  await page.reload({ waitUntil: 'load' });
  await waitSection(page, 'train', 90000);
};

const attr = (page, id, name) => byTestId(page, id).getAttribute(name);
const waitState = (page, states, timeout = 120000) => page.waitForFunction((want) => {
  const s = document.querySelector('[data-testid="train-status"]');
  return s && want.includes(s.dataset.state);
}, states, { timeout });
// wait until the element's attribute equals `want` (op 'eq') or is a number >= want (op 'gte')
const waitAttr = (page, id, name, op, want, timeout = 120000) => page.waitForFunction(([i, n, o, w]) => {
  const v = document.querySelector(`[data-testid="${i}"]`)?.getAttribute(n);
  return o === 'gte' ? v != null && v !== '' && Number(v) >= w : v === w;
}, [id, name, op, want], { timeout });

// the chapter's worker evaluates the held-out windows on the run's model now
const engineVal = (page) => page.evaluate(async () => {
  const t = window.__train;
  return t.engine.charModelEvaluate({ id: t.modelId(), ...t.validation });
});
// garbage under the language's key of the chapter's IndexedDB store (train-store.mjs)
const writeGarbage = (page, lang, value) => page.evaluate(([l, v]) => new Promise((resolve, reject) => {
  const req = indexedDB.open('attn-lesson-train', 1);
  req.onupgradeneeded = () => { if (!req.result.objectStoreNames.contains('runs')) req.result.createObjectStore('runs'); };
  req.onsuccess = () => {
    const db = req.result;
    const tx = db.transaction('runs', 'readwrite');
    tx.objectStore('runs').put(v === 'flip' ? null : v, l);
    tx.oncomplete = () => { db.close(); resolve(); };
    tx.onerror = () => reject(tx.error);
  };
  req.onerror = () => reject(req.error);
}), [lang, value]);

async function trainSteps(page, atLeast) {
  const from = Number(await attr(page, 'train-status', 'data-step'));
  await byTestId(page, 'train-run').click();
  await waitState(page, ['running']);
  await waitAttr(page, 'train-status', 'data-step', 'gte', from + atLeast);
  await byTestId(page, 'train-run').click();   // pause: stops between two steps
  await waitState(page, ['paused']);
  await waitAttr(page, 'train-saved', 'data-state', 'eq', 'saved');
}

for (const lang of ['fa', 'ar']) {
  test(`${lang}: a few steps change the loss to the engine's; pause, resume, reload keep the run`, T, async () => {
    const page = await openLesson(b, lang, '?train.seed=5#train');
    await waitState(page, ['idle', 'paused']);
    if (await attr(page, 'train-status', 'data-step') !== '0') {   // a run left by an earlier test: start afresh
      await byTestId(page, 'train-reset').click();
      await waitAttr(page, 'train-status', 'data-step', 'eq', '0');
      await waitState(page, ['idle']);
    }
    assert.equal(await attr(page, 'train-run', 'data-action'), 'start');
    assert.equal(await attr(page, 'train-status', 'data-val-step'), '0');
    const val0 = Number(await attr(page, 'train-status', 'data-val'));
    assert.equal(val0, await engineVal(page), 'the untrained model\'s held-out loss is the engine\'s');
    // a few steps
    await trainSteps(page, 3);
    const step = Number(await attr(page, 'train-status', 'data-step'));
    assert.equal(await attr(page, 'train-status', 'data-val-step'), String(step), 'the held-out loss is measured at the paused step');
    const val = Number(await attr(page, 'train-status', 'data-val'));
    assert.notEqual(val, val0, 'training changed the loss');
    assert.equal(val, await engineVal(page), 'the shown loss is the engine\'s for the model as it is now');
    const status = await byTestId(page, 'train-status').textContent();
    const shown = plain(status);
    assert.ok(shown.includes(val.toFixed(3)), `«${status}» shows ${val.toFixed(3)}`);
    assert.ok(DIGITS[lang].re.test(status) && !DIGITS[lang].other.test(status), `${lang} digits: ${status}`);
    assert.equal(await attr(page, 'train-run', 'data-action'), 'resume');
    assert.equal(await attr(page, 'train-saved', 'data-step'), String(step));
    assert.equal(new URL(page.url()).searchParams.get('train.seed'), '5');
    // resume: more steps on the same model
    await trainSteps(page, 2);
    const step2 = Number(await attr(page, 'train-status', 'data-step'));
    assert.ok(step2 >= step + 2);
    const val2 = Number(await attr(page, 'train-status', 'data-val'));
    assert.equal(val2, await engineVal(page));
    // the sample and the attention map follow the run
    await waitAttr(page, 'train-sample', 'data-step', 'eq', String(step2));
    assert.equal(await attr(page, 'train-attn', 'data-step'), String(step2));
    // reload: the run comes back at its step with the same held-out loss (f32 weights + optimizer state)
    await reloadTrain(page);
    await waitState(page, ['paused']);
    assert.equal(await attr(page, 'train-saved', 'data-state'), 'restored');
    assert.equal(await attr(page, 'train-status', 'data-step'), String(step2));
    assert.equal(Number(await attr(page, 'train-status', 'data-val')), val2);
    assert.equal(await engineVal(page), val2);
    assert.ok((await byTestId(page, 'train-saved').textContent()).includes(head(TEXT[lang]['train.saved.restored'])));
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: a damaged saved run is refused in the page's language; the page keeps working; the backward steps to its end; axe`, T, async () => {
    const page = await openLesson(b, lang, '#train');
    await waitState(page, ['idle', 'paused']);
    await writeGarbage(page, lang, 'garbage');
    await reloadTrain(page);
    await waitState(page, ['idle']);
    assert.equal(await attr(page, 'train-saved', 'data-state'), 'refused');
    assert.equal(await attr(page, 'train-saved', 'data-reason'), 'format');
    const msg = await byTestId(page, 'train-saved').textContent();
    assert.ok(msg.includes(head(TEXT[lang]['train.saved.format'])), `«${msg}»`);
    assert.ok(!/[A-Za-z]{3,}/.test(msg), `no English in «${msg}»`);
    // a fresh model is there and trains
    assert.equal(await attr(page, 'train-status', 'data-step'), '0');
    await byTestId(page, 'train-fresh').click();
    await waitState(page, ['idle']);
    await trainSteps(page, 1);
    // the backward step-through: from the URL-less start to its last tile, equal to the materialized backward
    const steps = Number(await attr(page, 'train-bk-step', 'data-steps'));
    assert.equal(steps, 6);
    for (let i = 0; i < steps; i++) await byTestId(page, 'train-bk-next').click();
    await waitAttr(page, 'train-bk-step', 'data-step', 'eq', String(steps));
    assert.equal(new URL(page.url()).searchParams.get('train.bstep'), String(steps));
    assert.ok(Number(await attr(page, 'train-bk-diff', 'data-diff')) < 1e-6);
    // axe over the section (tables open)
    const v = await axeViolations(page, { include: 'section#train' });
    assert.equal(v.length, 0, `axe violations in ${lang} train:\n${formatAxe(v)}`);
    await elementShot(page.locator('section#train'), path.join(SCREENSHOT_DIR, `train-${lang}-1280.png`));
    assertNoIssues(page);
    await page.close();
  });

  // The page around the chapter on a 360 px phone (every section built) is a11y-lesson.test's
  // overflow check; this one is the chapter's, after it trained.
  test(`${lang}: a 360 px phone gets the small model, trains, and does not scroll sideways`, T, async () => {
    phone ??= await launchPhone({ width: 360 });
    const page = await openLesson(phone, lang, '?train.bstep=3#train');
    await waitState(page, ['idle', 'paused']);
    assert.equal(await byTestId(page, 'train-size').inputValue(), 'small');
    assert.equal(await attr(page, 'train-bk-step', 'data-step'), '3', 'step-through position from the URL');
    await trainSteps(page, 2);
    await page.locator('section#train').scrollIntoViewIfNeeded();
    assert.equal(await overflowPx(page, 360), 0);
    await elementShot(page.locator('section#train'), path.join(SCREENSHOT_DIR, `train-${lang}-360.png`));
    assertNoIssues(page);
    await page.close();
  });
}
