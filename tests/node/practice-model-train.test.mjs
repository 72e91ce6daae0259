// The practice of chapters 13–14 (issue 24: the character model, and training it): what
// generators.test.mjs does not check for every generator. The answers against the engine in
// ways a learner cannot see (a finite difference of the engine's loss, the shipped models'
// weight counts, an untrained model's loss and attention); the character-model exercise
// through the page's road (the worker client); grading in Persian and Arabic digits; the
// figures the new myths state; and the progress of every new item through save and reload.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXERCISES, QUIZ } from '../../web/js/practice/generators.mjs';
import { gradeQuestion } from '../../web/js/practice/grading.mjs';
import { itemIds } from '../../web/js/practice/items.mjs';
import { formatNumber } from '../../web/js/i18n/numerals.mjs';
import { openProgress } from '../../web/js/store/progress.mjs';
import { recordExercise, recordRound, recordFinishedRound } from '../../web/js/store/records.mjs';
import { createScheduler } from '../../web/js/practice/scheduler.mjs';
import { charModelHandlers } from '../../web/js/engine-link/char-model-worker.mjs';
import { createEngineClient } from '../../web/js/engine-link/engine-client.mjs';
import { loadTextDir } from '../../build-scripts/text-checks.mjs';
import { installFakeWorkers } from './fake-worker.mjs';
import { FakeStorage } from './fake-storage.mjs';
import { loadEngine } from './engine-fixtures.mjs';

const engine = await loadEngine();
const { texts } = loadTextDir(fileURLToPath(new URL('../../web/text', import.meta.url)));
const shipped = (lang) => JSON.parse(readFileSync(new URL(`../../web/models/${lang}.json`, import.meta.url), 'utf8'));

const NEW_EX = ['uniform-loss', 'ce-gradient', 'previous-head'];
const NEW_QUIZ = ['char-loss', 'sample-temperature', 'model-weights', 'backward-memory'];
const NEW_CARDS = ['c48', 'c49', 'c50', 'c51', 'c52', 'c53', 'c54', 'c55'];
const NEW_MYTHS = ['m14', 'm15', 'm16'];
const SEEDS = Array.from({ length: 30 }, (_, i) => i * 104729 + 3);
const NEW = [...NEW_EX.map((id) => EXERCISES[id]), ...NEW_QUIZ.map((id) => QUIZ[id])];

test('the new items exist: 3 exercises, 4 quiz generators, 8 cards, 3 myths, in every language', () => {
  for (const g of NEW) assert.ok(g, 'generator present');
  for (const lang of Object.keys(texts)) {
    const keys = Object.keys(texts[lang]);
    for (const id of NEW_CARDS) assert.ok(itemIds(keys, 'cards').includes(id), `${lang} card ${id}`);
    for (const id of NEW_MYTHS) assert.ok(itemIds(keys, 'myth').includes(id), `${lang} myth ${id}`);
    for (const id of NEW_EX) assert.ok(texts[lang][`ex.ui.title.${id}`], `${lang} title of ${id}`);
  }
});

test('uniform-loss: an untrained engine model lands within 0.1 nats of ln V, the answer', async () => {
  let worst = 0;
  for (const seed of SEEDS) {
    const q = await EXERCISES['uniform-loss'].generate(seed, engine);
    const { untrained } = q.steps.at(-1).params;
    worst = Math.max(worst, Math.abs(untrained - q.answer));
    assert.ok(Math.abs(q.answer - Math.log(q.params.vocab)) < 1e-5);
  }
  assert.ok(worst < 0.1, `largest gap between the untrained model and ln V: ${worst}`);
  // and the shipped models' first training step started there too (their recorded curves)
  for (const lang of ['fa', 'ar']) {
    const m = shipped(lang);
    assert.ok(Math.abs(m.train_loss[0] - Math.log(m.config.vocab)) < 0.1, `${lang}: first loss ${m.train_loss[0]} vs ln ${m.config.vocab}`);
  }
});

test('ce-gradient: p − y equals a central difference of the engine\'s cross-entropy', async () => {
  const loss = async (s, target) => -Math.log((await engine.softmaxRow({ logits: s })).weights[target - 1]);
  const h = 1e-2;
  for (const seed of SEEDS.slice(0, 12)) {
    const q = await EXERCISES['ce-gradient'].generate(seed, engine);
    const s = [q.params.s1, q.params.s2, q.params.s3, q.params.s4];
    const up = s.slice(), down = s.slice();
    up[q.params.j - 1] += h;
    down[q.params.j - 1] -= h;
    const fd = ((await loss(up, q.params.target)) - (await loss(down, q.params.target))) / (2 * h);
    assert.ok(Math.abs(fd - q.answer) < 1e-3, `seed ${seed}: finite difference ${fd}, p − y ${q.answer}`);
  }
  // both signs occur: the right character's logit (p − 1 < 0) and another's (p > 0)
  const signs = new Set();
  for (const seed of SEEDS) signs.add(Math.sign((await EXERCISES['ce-gradient'].generate(seed, engine)).answer));
  assert.ok(signs.has(-1) && signs.has(1), [...signs].join());
});

test('previous-head: the larger score is the previous-character head\'s, and it stands out', async () => {
  for (const seed of SEEDS) {
    const q = await EXERCISES['previous-head'].generate(seed, engine);
    const { scoreA, scoreB } = q.steps[0].params;
    assert.ok(Math.max(scoreA, scoreB) > 0.5 && Math.abs(scoreA - scoreB) > 0.2, `seed ${seed}: ${scoreA} vs ${scoreB}`);
    assert.equal(q.steps[1].params.head, scoreA > scoreB ? 1 : 2);
  }
});

test('model-weights: the formula the prompt states is the engine\'s count, and the shipped models\' own', async () => {
  const formula = (V, C, d, L) => (V + C) * d + L * (12 * d * d + 13 * d) + 2 * d;
  for (const lang of ['fa', 'ar']) {
    const { config } = shipped(lang);
    const count = engine.charModelParameterCount({ vocab: config.vocab, context: config.context, width: config.width, layers: config.layers, heads: config.heads });
    assert.equal(count, config.parameters, `${lang}: engine ${count}, file ${config.parameters}`);
    assert.equal(formula(config.vocab, config.context, config.width, config.layers), count);
  }
});

test('an untrained model attends almost uniformly (the fact of myth m16)', () => {
  const { config } = shipped('fa');
  const m = engine.charModel({ vocab: config.vocab, context: config.context, width: config.width, layers: config.layers, heads: config.heads, seed: 1 });
  try {
    const n = 24;
    const tokens = Array.from({ length: n }, (_, i) => (i * 11) % config.vocab);
    const { attention } = m.forward(tokens);
    let worst = 0;
    for (const layer of attention) {
      for (const w of layer) {
        for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) worst = Math.max(worst, Math.abs(w.data[i * n + j] - 1 / (i + 1)));
      }
    }
    assert.ok(worst < 0.05, `largest distance from 1/(i + 1): ${worst}`);
  } finally {
    m.delete();
  }
});

test('uniform-loss through the page\'s worker client gives the same question as engine.mjs here', async () => {
  const workers = installFakeWorkers(() => ({ target: engine, handlers: charModelHandlers(engine) }));
  try {
    const client = createEngineClient({ workerUrl: 'engine-worker.mjs' });
    await client.ready;
    for (const seed of [1, 2, 77]) {
      const there = await EXERCISES['uniform-loss'].generate(seed, client);
      const here = await EXERCISES['uniform-loss'].generate(seed, engine);
      assert.deepEqual(there, here);
    }
    // the throwaway models were freed in the worker: ids 1..3 are gone
    for (const id of [1, 2, 3]) await assert.rejects(client.charModelEvaluate({ id, inputs: [0], targets: [0] }), /no character model/);
  } finally {
    workers.uninstall();
  }
});

test('grading: the answer in Persian and in Arabic digits is right, a wrong one refused', async () => {
  for (const g of NEW) {
    for (const seed of SEEDS.slice(0, 6)) {
      const q = await g.generate(seed, engine);
      const tol = Math.max(q.tolerance.abs, q.tolerance.rel * Math.abs(q.answer));
      const wrong = q.answer + 3 * tol + 0.01 * Math.max(1, Math.abs(q.answer));
      for (const lang of ['fa', 'ar']) {
        const digits = { lang, maximumFractionDigits: 6, useGrouping: false };
        const right = formatNumber(q.answer, digits);
        assert.match(right, lang === 'fa' ? /[۰-۹]/ : /[٠-٩]/);
        assert.equal(gradeQuestion(right, q).status, 'correct', `${g.id} ${lang} ${right}`);
        assert.equal(gradeQuestion(formatNumber(wrong, digits), q).status, 'wrong', `${g.id} ${lang} ${formatNumber(wrong, digits)}`);
      }
    }
  }
  // the gradient's minus sign, typed either way, in either script
  const q = { answer: -0.756, tolerance: { abs: 0.006, rel: 0.01 }, percentOk: false };
  for (const typed of ['−۰٫۷۶', '-۰٫۷۶', '-٠٫٧٦', '−0.76']) assert.equal(gradeQuestion(typed, q).status, 'correct', typed);
  assert.equal(gradeQuestion('۰٫۷۶', q).status, 'wrong', 'the sign matters');
});

test('myth figures: each language states its own shipped model\'s numbers, in its digits', () => {
  const fmt = (lang, x, d = 2) => formatNumber(x, { lang, maximumFractionDigits: d });
  for (const lang of ['fa', 'ar']) {
    const m = shipped(lang);
    const fact = texts[lang]['myth.m14.fact'];
    const v = m.validation_nats_per_char;
    for (const figure of [fmt(lang, m.config.parameters), fmt(lang, m.training.steps), fmt(lang, v.model), fmt(lang, v.bigram_add_one),
      fmt(lang, v.unigram_add_one), fmt(lang, Math.log(m.config.vocab), lang === 'fa' ? 1 : 2)]) {
      assert.ok(fact.includes(figure), `${lang} myth.m14.fact lacks ${figure}`);
    }
    assert.ok(fact.includes(`\\ln ${m.config.vocab}`), `${lang}: ln of its own vocabulary`);
    // m15: one head of 4,096 tokens in float32: 64 MiB of weights against 16 KiB of row numbers
    const m15 = texts[lang]['myth.m15.fact'];
    assert.equal(engine.scoreMatrixBytes({ n: 4096, bytesPerElement: 4 }), 64 * 2 ** 20);
    assert.equal((4096 * 4) / 1024, 16);
    for (const figure of [fmt(lang, 4096), fmt(lang, 64), fmt(lang, 16)]) assert.ok(m15.includes(figure), `${lang} myth.m15.fact lacks ${figure}`);
  }
});

test('progress of every new item survives a save and a reload (exercises, a quiz round, cards)', async () => {
  const storage = new FakeStorage();
  const now = new Date('2026-12-06T04:00:00.000Z');
  const store = openProgress({ storage, now: () => now });
  for (const id of NEW_EX) assert.deepEqual(recordExercise(store, id, { status: 'correct', seed: 4242 }, now), { ok: true }, id);
  const items = NEW_QUIZ.map((id, i) => ({ kind: 'numeric', id, seed: 1000 + i }));
  assert.deepEqual(recordRound(store, 'main', { items, i: 2, score: 1, done: false, startedAt: now.toISOString(), updatedAt: now.toISOString() }), { ok: true });
  const scheduler = createScheduler(await import('ts-fsrs'));
  for (const id of NEW_CARDS) assert.deepEqual(scheduler.recordReview(store, id, 'good', now), { ok: true }, id);
  assert.deepEqual(store.notices, [], 'no notice: nothing refused');

  const again = openProgress({ storage, now: () => now });
  assert.deepEqual(again.notices, []);
  const d = again.get();
  for (const id of NEW_EX) assert.deepEqual(d.exercises[id], { attempts: 1, correct: 1, lastStatus: 'correct', lastSeed: 4242, updatedAt: now.toISOString() });
  assert.deepEqual(d.rounds.main.items, items);
  for (const id of NEW_CARDS) assert.equal(d.cards[id]?.reps, 1, id);

  // the round finishes and its score joins the history, also after a reload
  assert.deepEqual(recordFinishedRound(again, 'main', { items, i: 4, score: 3, done: true, startedAt: now.toISOString(), updatedAt: now.toISOString() }), { ok: true });
  const third = openProgress({ storage, now: () => now }).get();
  assert.equal(third.rounds.main.done, true);
  assert.deepEqual(third.quizzes.main.at(-1), { at: now.toISOString(), score: 3, total: 4 });
});

test('a practice item links to its section only once the lesson has it (no dead link before its chapter lands)', async () => {
  const { installFakeDom } = await import('./fake-dom.mjs');
  const { lessonLink } = await import('../../web/js/practice/blocks/ui.mjs');
  const { SECTIONS } = await import('../../web/js/lesson/lesson-sections.mjs');
  const { LESSON_SECTIONS } = await import('../../web/js/practice/lesson-links.mjs');
  const dom = installFakeDom();
  try {
    const ctx = { tNode: (key, params) => `${key} ${params?.title?.textContent ?? ''}` };
    const onPage = new Set(SECTIONS.map((s) => s.id));
    const link = lessonLink(ctx, 'ex', 'dot-score');
    assert.ok(link, 'an item of a chapter the lesson has: a link');
    assert.match(link.textContent, /s2\.title/);
    for (const [kind, ids] of [['ex', NEW_EX], ['quiz', NEW_QUIZ], ['cards', NEW_CARDS], ['myth', NEW_MYTHS]]) {
      for (const id of ids) {
        const section = LESSON_SECTIONS[kind][id][0];
        assert.equal(Boolean(lessonLink(ctx, kind, id)), onPage.has(section), `${kind}.${id} → ${section} (on the page: ${onPage.has(section)})`);
      }
    }
  } finally {
    dom.uninstall();
  }
});
