// Merging two copies of the learner's progress (two open tabs, or an imported
// file and this browser's copy), so that progress made in one is never erased
// by the other. Per record, the newer one wins:
//   settings                one record, stamped updatedAt (absent: oldest); between two
//                           unstamped ones (version 1 copies) the one not at the defaults
//   cards[id]               last_review (a card never reviewed: oldest), then more reps
//   exercises[id]           updatedAt, then more attempts
//   guesses[id]             at
//   rounds[quizId]          the round started later (startedAt; a record without one counts
//                           as started when it last changed), then, within one round, the
//                           one further along (i), then finished, then updatedAt. So a tab
//                           still showing an earlier question of the same round never takes
//                           back answers another tab saved after it
//   quizzes[quizId]         every finished round of both histories (the same round
//                           once), oldest first, the last MAX_QUIZ_HISTORY kept
// Ties are broken by the records' JSON text, so the result does not depend on the
// order of the arguments: two tabs that merge each other's copies agree.
//
// mergeData(a, b) takes two VALID data objects (schema.mjs validateData) and
// returns a new one; neither argument is changed. sameData(a, b): the same data,
// whatever order their keys were written in.

import { MAX_QUIZ_HISTORY } from './schema.mjs';

const time = (iso) => (typeof iso === 'string' ? Date.parse(iso) : -Infinity);

// Compare two records by a list of keys (numbers, larger = newer), then by text.
function newer(a, b, keys) {
  for (const k of keys) {
    const x = k(a), y = k(b);
    if (x !== y) return x > y ? a : b;
  }
  return JSON.stringify(a) >= JSON.stringify(b) ? a : b;
}

const ORDER = {
  cards: [(c) => time(c.last_review), (c) => c.reps],
  exercises: [(e) => time(e.updatedAt), (e) => e.attempts],
  guesses: [(g) => time(g.at)],
  rounds: [(r) => time(r.startedAt ?? r.updatedAt), (r) => r.i, (r) => (r.done ? 1 : 0), (r) => time(r.updatedAt)],
};

function mergeMap(a, b, keys) {
  const out = {};
  for (const id of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = Object.hasOwn(a, id) ? a[id] : undefined;
    const y = Object.hasOwn(b, id) ? b[id] : undefined;
    out[id] = structuredClone(x === undefined ? y : y === undefined ? x : newer(x, y, keys));
  }
  return out;
}

const roundKey = (r) => `${r.at}|${r.score}|${r.total}`;

function mergeHistories(a, b) {
  const out = {};
  for (const id of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const seen = new Map();
    for (const r of [...(Object.hasOwn(a, id) ? a[id] : []), ...(Object.hasOwn(b, id) ? b[id] : [])]) {
      seen.set(roundKey(r), { at: r.at, score: r.score, total: r.total });
    }
    out[id] = [...seen.entries()]
      .sort(([ka, x], [kb, y]) => time(x.at) - time(y.at) || (ka < kb ? -1 : ka > kb ? 1 : 0))
      .map(([, r]) => r)
      .slice(-MAX_QUIZ_HISTORY);
  }
  return out;
}

export function mergeData(a, b) {
  return {
    settings: structuredClone(newer(a.settings, b.settings, [(s) => time(s.updatedAt), (s) => (s.lang === null && !s.latinDigits ? 0 : 1)])),
    cards: mergeMap(a.cards, b.cards, ORDER.cards),
    exercises: mergeMap(a.exercises, b.exercises, ORDER.exercises),
    quizzes: mergeHistories(a.quizzes, b.quizzes),
    guesses: mergeMap(a.guesses, b.guesses, ORDER.guesses),
    rounds: mergeMap(a.rounds, b.rounds, ORDER.rounds),
  };
}

// JSON with every object's keys sorted: equal for equal data, however it was built.
const canonical = (x) => JSON.stringify(x, (k, v) => (v && typeof v === 'object' && !Array.isArray(v)
  ? Object.fromEntries(Object.keys(v).sort().map((key) => [key, v[key]])) : v));

export const sameData = (a, b) => canonical(a) === canonical(b);
