// One journey through the practice of chapters 13–14 (the trained model, training), each edition: the exercise
// that makes an untrained character model in the page's engine worker (uniform-loss: a model
// handle cannot leave the worker, so it runs by id there) shows its prompt and steps in the
// page's language, grades the worker's answer right and a far one wrong, and its tally
// survives a reload. Numbers and the other new items: tests/node/practice-model-train.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, assertNoIssues, byTestId, normaliseText, LANGS } from './helpers.mjs';
import { openPractice, waitPage } from './lesson-helpers.mjs';
import { typed, reload, storeData } from './practice-helpers.mjs';

const T = { timeout: 180000 };
const ID = 'uniform-loss';
const SCRIPT = /[\u0621-\u064a\u067e\u0686\u0698\u06a9\u06af\u06cc]/;

let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

async function answer(page, value) {
  const fb = byTestId(page, 'practice-feedback');
  await page.evaluate((el) => { el.textContent = ''; delete el.dataset.status; }, await fb.elementHandle());
  await byTestId(page, 'practice-answer-input').fill(value);
  await byTestId(page, 'practice-check').click();
  await page.waitForFunction((el) => !!el.dataset.status, await fb.elementHandle());
  return fb.getAttribute('data-status');
}

for (const lang of LANGS) {
  test(`${lang}: the untrained-model exercise runs in the engine worker, grades, and its tally survives a reload`, T, async () => {
    const page = await openPractice(b, lang);
    await page.evaluate(() => localStorage.clear());
    await page.reload({ waitUntil: 'load' });
    await waitPage(page, 'practice');
    await byTestId(page, 'practice-exercise-select').selectOption(ID);
    const card = byTestId(page, 'practice-exercise');
    await page.waitForFunction(([el, id]) => el.dataset.id === id && el.dataset.state === 'ready' && el.dataset.seed,
      [await card.elementHandle(), ID]);
    const prompt = normaliseText(await byTestId(page, 'practice-prompt').textContent());
    assert.ok(SCRIPT.test(prompt) && !/\[[A-Za-z]\w*\]/.test(prompt) && !prompt.includes('⟦'), `${lang} prompt: ${prompt}`);

    // the same question again through the page's own worker client
    const seed = Number(await card.getAttribute('data-seed'));
    const q = await page.evaluate(async ([id, seed]) => {
      const { EXERCISES } = await import('/js/practice/generators.mjs');
      const r = await EXERCISES[id].generate(seed, window.__practice.engine);
      return { answer: r.answer, vocab: r.params.vocab, untrained: r.steps.at(-1).params.untrained, steps: r.steps.length };
    }, [ID, seed]);
    assert.ok(Math.abs(q.answer - Math.log(q.vocab)) < 1e-5, `ln ${q.vocab}: ${q.answer}`);
    assert.ok(Math.abs(q.untrained - q.answer) < 0.1, `the worker's untrained model: ${q.untrained}`);

    assert.equal(await answer(page, typed(lang, q.answer + 1)), 'wrong');
    assert.equal(await answer(page, typed(lang, q.answer)), 'correct');
    await byTestId(page, 'practice-solution').click();
    const steps = card.locator('[data-testid="practice-solution-steps"] li');
    await steps.first().waitFor();
    assert.equal(await steps.count(), q.steps);
    for (const s of await steps.allTextContents()) assert.ok(SCRIPT.test(s) && !s.includes('⟦'), `${lang} step: ${s}`);

    await reload(page);
    const saved = (await storeData(page)).exercises[ID];
    assert.deepEqual([saved?.attempts, saved?.correct, saved?.lastSeed], [2, 1, seed], JSON.stringify(saved));
    assertNoIssues(page);
    await page.close();
  });
}
