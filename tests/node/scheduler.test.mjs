// Flashcard scheduling with ts-fsrs: due dates move with the grade, intervals
// order Again < Hard < Good < Easy, cards round-trip through the store.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as lib from 'ts-fsrs';
import { createScheduler, GRADES } from '../../web/js/practice/scheduler.mjs';
import { openProgress } from '../../web/js/store/progress.mjs';
import { FakeStorage } from './fake-storage.mjs';

const sched = createScheduler(lib);
const T0 = new Date('2025-05-01T08:00:00.000Z');
const ms = (iso) => Date.parse(iso);
const DAY = 86400e3;

test('a new card is due immediately and is serialized with ISO dates', () => {
  const c = sched.newCard(T0);
  assert.equal(c.due, T0.toISOString());
  assert.equal(c.state, 0);
  assert.equal(c.reps, 0);
  assert.ok(sched.isDue(c, T0));
  assert.equal(JSON.stringify(JSON.parse(JSON.stringify(c))), JSON.stringify(c), 'plain JSON');
});

test('intervals grow Again < Hard < Good < Easy, on a new card and on a review card', () => {
  const check = (card, now) => {
    const due = GRADES.map((g) => ms(sched.review(card, g, now).due));
    for (let i = 1; i < due.length; i++) assert.ok(due[i - 1] < due[i], `${GRADES[i - 1]} < ${GRADES[i]}: ${due}`);
    for (const d of due) assert.ok(d > now.getTime(), 'every grade moves the due date into the future');
    return due;
  };
  check(sched.newCard(T0), T0);
  // Bring a card to the Review state, then review it on its due date.
  let c = sched.review(sched.newCard(T0), 'easy', T0);
  assert.equal(c.state, 2);
  const when = new Date(c.due);
  const due = check(c, when);
  assert.ok(due[3] - when.getTime() > 7 * DAY, 'Easy on a review card: more than a week');
  assert.ok(due[0] - when.getTime() < DAY, 'Again on a review card: within a day (relearning)');
  assert.equal(sched.review(c, 'again', when).lapses, 1);
});

test('preview gives the four due dates the buttons will show', () => {
  const c = sched.newCard(T0);
  const p = sched.preview(c, T0);
  assert.deepEqual(Object.keys(p), GRADES);
  for (const g of GRADES) assert.equal(p[g], sched.review(c, g, T0).due);
});

test('serialize / deserialize round trip keeps every field', () => {
  const c = sched.review(sched.review(sched.newCard(T0), 'good', T0), 'good', new Date(T0.getTime() + 3600e3));
  const card = sched.deserialize(c);
  assert.ok(card.due instanceof Date && card.last_review instanceof Date);
  assert.deepEqual(sched.serialize(card), c);
  const fresh = sched.deserialize(sched.newCard(T0));
  assert.equal('last_review' in fresh, false);
});

test('dueCards: overdue first, new deck cards last, future cards absent', () => {
  const cards = {
    later: { ...sched.newCard(T0), due: '2025-05-03T00:00:00.000Z' },
    old: { ...sched.newCard(T0), due: '2025-04-01T00:00:00.000Z' },
    now: sched.newCard(T0),
  };
  assert.deepEqual(sched.dueCards(cards, T0, ['now', 'x', 'later', 'y']), ['old', 'now', 'x', 'y']);
  assert.deepEqual(sched.dueCards(cards, new Date('2025-05-04T00:00:00Z')), ['old', 'now', 'later']);
  assert.throws(() => sched.review(cards.now, 'perfect', T0), /unknown grade/);
});

test('recordReview stores a card the progress schema accepts, and it survives a reload', () => {
  const storage = new FakeStorage();
  const store = openProgress({ storage });
  assert.deepEqual(sched.recordReview(store, 'card.scale', 'good', T0), { ok: true });
  assert.deepEqual(sched.recordReview(store, 'card.scale', 'good', new Date(T0.getTime() + 600e3)), { ok: true });
  const reopened = openProgress({ storage });
  assert.deepEqual(reopened.notices, []);
  assert.equal(reopened.get().cards['card.scale'].reps, 2);
  assert.deepEqual(reopened.get().cards['card.scale'], store.get().cards['card.scale']);
  assert.ok(ms(reopened.get().cards['card.scale'].due) > T0.getTime() + DAY);
});
