// The quiz's question kinds: practice/blocks/quiz.mjs QUIZ_KINDS (draw, known, show) and
// store/schema.mjs QUESTION_KINDS (valid, record) hold the same kinds, and a round of every
// kind survives save → reload through the functions the quiz itself saves and resumes with
// (drawRound, roundRecord, resumableRound), not a copy of them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { QUIZ_KINDS, drawRound, roundRecord, resumableRound } from '../../web/js/practice/blocks/quiz.mjs';
import { QUESTION_KINDS } from '../../web/js/store/schema.mjs';
import { openProgress } from '../../web/js/store/progress.mjs';
import { recordRound } from '../../web/js/store/records.mjs';
import { createRng } from '../../web/js/practice/random.mjs';
import { setText } from '../../web/js/i18n/i18n.mjs';
import { loadTextDir } from '../../build-scripts/text-checks.mjs';
import { FakeStorage } from './fake-storage.mjs';

const { texts } = loadTextDir(fileURLToPath(new URL('../../web/text', import.meta.url)));
setText('fa', texts.fa);   // the multiple-choice questions are the text's quiz.<id>.stem keys
const NOW = new Date('2026-01-01T10:00:00.000Z');

// A round drawn, partly answered (as the quiz does: a numeric question keeps its first seed),
// saved, and read back by a second store on the same storage, as a reload does.
function saveAndReload(round, answered) {
  for (const it of round.items) if (it.kind === 'numeric') it.seed = 12345;
  const storage = new FakeStorage();
  const store = openProgress({ storage, events: null });
  assert.deepEqual(recordRound(store, 'main', roundRecord({ ...round, score: 1 }, answered, false, NOW)), { ok: true });
  return resumableRound(openProgress({ storage, events: null }).get().rounds.main);
}

test('the quiz has a question for every kind a saved round can hold (QUESTION_KINDS), and no other', () => {
  assert.deepEqual(Object.keys(QUIZ_KINDS).sort(), Object.keys(QUESTION_KINDS).sort(),
    'a kind in one table and not the other: add its half in practice/blocks/quiz.mjs QUIZ_KINDS or store/schema.mjs QUESTION_KINDS');
  for (const [kind, k] of Object.entries(QUIZ_KINDS)) {
    for (const f of ['draw', 'known', 'show']) assert.equal(typeof k[f], 'function', `QUIZ_KINDS.${kind}.${f}`);
  }
});

test('a round holding every kind of QUESTION_KINDS survives save → reload through the quiz\'s own code', () => {
  for (const seed of [1, 42, 2 ** 31 + 7]) {
    const round = drawRound(createRng(seed), NOW);
    const kinds = new Set(round.items.map((it) => it.kind));
    for (const kind of Object.keys(QUESTION_KINDS)) assert.ok(kinds.has(kind), `seed ${seed}: the round has a question of kind ${kind}`);
    const back = saveAndReload(round, 2);
    assert.ok(back, `seed ${seed}: the saved round is resumed, not dropped`);
    assert.deepEqual(back, { items: round.items, i: 2, score: 1, startedAt: NOW.toISOString() });
  }
});

test('a kind added to both tables is drawn, saved, resumed and shown as itself', () => {
  const shown = [];
  QUESTION_KINDS.order = {
    valid: (it) => Array.isArray(it.steps) && it.steps.length >= 2 && it.steps.every((s) => typeof s === 'string'),
    record: (it) => ({ kind: 'order', id: it.id, steps: [...it.steps] }),
  };
  QUIZ_KINDS.order = {
    draw: (rng) => [{ kind: 'order', id: 'pipeline', steps: rng.shuffle(['scores', 'softmax', 'weighted-sum']) }],
    known: (it) => it.id === 'pipeline',
    show: (v, item) => shown.push(item.id),
  };
  try {
    const round = drawRound(createRng(3), NOW);
    assert.ok(round.items.some((it) => it.kind === 'order'));
    const back = saveAndReload(round, 1);
    assert.ok(back, 'a round holding the new kind is resumed, not dropped');
    assert.deepEqual(back.items, round.items);
    const item = back.items.find((it) => it.kind === 'order');
    QUIZ_KINDS[item.kind].show(null, item);
    assert.deepEqual(shown, ['pipeline']);
  } finally {
    delete QUESTION_KINDS.order;
    delete QUIZ_KINDS.order;
  }
});

test('a saved round holding a kind the quiz does not have is an error that names the tables, not a round dropped', () => {
  QUESTION_KINDS.order = {
    valid: (it) => Array.isArray(it.steps),
    record: (it) => ({ kind: 'order', id: it.id, steps: [...it.steps] }),
  };
  try {
    const saved = { items: [{ kind: 'mcq', id: 'q01', order: ['o1', 'o2', 'o3', 'o4'] }, { kind: 'order', id: 'x', steps: ['a', 'b'] }],
      i: 0, score: 0, done: false, updatedAt: NOW.toISOString() };
    assert.throws(() => resumableRound(saved), /question kind 'order' is not in both QUIZ_KINDS .*QUESTION_KINDS/);
    assert.throws(() => roundRecord(saved, 0, false, NOW), /question kind 'order'/);
  } finally {
    delete QUESTION_KINDS.order;
  }
  // a round that is over, or a question this page no longer has, is not resumed (as before)
  const q = { kind: 'mcq', id: 'q01', order: ['o1', 'o2', 'o3', 'o4'] };
  assert.equal(resumableRound({ items: [q], i: 1, score: 1, done: true, updatedAt: NOW.toISOString() }), null);
  assert.equal(resumableRound({ items: [{ ...q, id: 'no-such-question' }], i: 0, score: 0, done: false, updatedAt: NOW.toISOString() }), null);
  assert.ok(resumableRound({ items: [q], i: 0, score: 0, done: false, updatedAt: NOW.toISOString() }));
});
