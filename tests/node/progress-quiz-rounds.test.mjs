// The quiz round in progress across tabs, and the table of question kinds (store/schema.mjs
// QUESTION_KINDS) that the quiz and the schema share.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openProgress, KEY } from '../../web/js/store/progress.mjs';
import { QUESTION_KINDS, validateData } from '../../web/js/store/schema.mjs';
import { mergeData } from '../../web/js/store/merge.mjs';
import { FakeStorage } from './fake-storage.mjs';

const T0 = Date.parse('2026-01-01T10:00:00.000Z');
const at = (s) => new Date(T0 + s * 1000).toISOString();
const ITEMS = [
  { kind: 'mcq', id: 'q01', order: ['o2', 'o1', 'o3', 'o4'] },
  { kind: 'mcq', id: 'q02', order: ['o1', 'o2', 'o3', 'o4'] },
  { kind: 'numeric', id: 'entropy', seed: 7 },
  { kind: 'mcq', id: 'q03', order: ['o4', 'o3', 'o2', 'o1'] },
];
const round = (i, score, t, extra = {}) => ({ items: ITEMS, i, score, done: false, startedAt: at(0), updatedAt: at(t), ...extra });

function twoTabs() {
  const storage = new FakeStorage();
  const busA = new EventTarget(), busB = new EventTarget();
  let t = 0;
  const now = () => new Date(T0 + (++t) * 1000);
  const a = openProgress({ storage, now, events: busA });
  const b = openProgress({ storage, now, events: busB });
  const deliver = (bus) => { const ev = new Event('storage'); ev.key = KEY; ev.newValue = storage.getItem(KEY); bus.dispatchEvent(ev); };
  return { storage, a, b, toA: () => deliver(busA), toB: () => deliver(busB) };
}

test('quiz in two tabs: a stale tab answering an earlier question does not take back the other tab\'s answers', () => {
  const { storage, a, b, toA, toB } = twoTabs();
  a.update((d) => { d.rounds.main = round(1, 1, 1); });            // A answered Q1, shows Q2
  toB();
  b.update((d) => { d.rounds.main = round(3, 2, 5); });            // B answered Q2 and Q3
  // A never heard of it (or heard it and still shows Q2): it answers Q2, later by the clock
  a.update((d) => { d.rounds.main = round(2, 2, 9); });
  toB(); toA();
  for (const [name, s] of [['A', a], ['B', b]]) assert.equal(s.get().rounds.main.i, 3, `${name} keeps B's answers`);
  const saved = openProgress({ storage, events: null }).get().rounds.main;
  assert.equal(saved.i, 3, 'the saved copy keeps them');
  assert.equal(saved.score, 2);
});

test('quiz in two tabs: a round started later replaces the earlier one, however far that one got', () => {
  const older = round(3, 3, 5);
  const newer = { ...round(0, 0, 6), startedAt: at(6) };
  const x = validateData({ rounds: { main: older } }).data;
  const y = validateData({ rounds: { main: newer } }).data;
  assert.equal(mergeData(x, y).rounds.main.startedAt, at(6));
  assert.equal(mergeData(y, x).rounds.main.startedAt, at(6));
  // within one round a finished record wins over one in progress
  const done = validateData({ rounds: { main: round(4, 3, 2, { done: true }) } }).data;
  const stale = validateData({ rounds: { main: round(2, 1, 9) } }).data;
  assert.equal(mergeData(stale, done).rounds.main.done, true);
});

test('a new question kind added to QUESTION_KINDS round-trips: saved, read back, exported and imported', () => {
  QUESTION_KINDS.order = {
    valid: (it) => Array.isArray(it.steps) && it.steps.length >= 2 && it.steps.every((s) => typeof s === 'string'),
    record: (it) => ({ kind: 'order', id: it.id, steps: [...it.steps] }),
  };
  try {
    const storage = new FakeStorage();
    const store = openProgress({ storage, events: null });
    const items = [...ITEMS, { kind: 'order', id: 'pipeline', steps: ['scores', 'softmax', 'weighted-sum'] }];
    const r = store.update((d) => { d.rounds.main = { items: items.map((it) => QUESTION_KINDS[it.kind].record(it)), i: 0, score: 0, done: false, startedAt: at(0), updatedAt: at(0) }; });
    assert.deepEqual(r, { ok: true });
    const again = openProgress({ storage, events: null });
    assert.deepEqual(again.get().rounds.main.items.at(-1), { kind: 'order', id: 'pipeline', steps: ['scores', 'softmax', 'weighted-sum'] });
    const other = openProgress({ storage: new FakeStorage(), events: null });
    assert.deepEqual(other.import(again.export()), { ok: true });
    assert.deepEqual(other.get().rounds.main.items, again.get().rounds.main.items);
  } finally {
    delete QUESTION_KINDS.order;
  }
  // a kind the table does not know is refused, and the refusal is said (a 'not-saved' notice)
  const store = openProgress({ storage: new FakeStorage(), events: null });
  const r = store.update((d) => { d.rounds.main = { items: [{ kind: 'order', id: 'x', steps: ['a', 'b'] }], i: 0, score: 0, done: false, updatedAt: at(0) }; });
  assert.equal(r.ok, false);
  assert.deepEqual(r.sections, ['rounds']);
  assert.deepEqual(store.notices, [{ code: 'not-saved', sections: ['rounds'] }]);
});
