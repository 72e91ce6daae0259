// Small writers for the progress store, so every practice block records
// results in the same shape (schema.mjs) instead of editing sections by hand.
// Each returns store.update's {ok, error?}; none throws.

import { MAX_QUIZ_HISTORY } from './schema.mjs';

/** One graded attempt at a numeric exercise. status: 'correct'|'wrong'|'unparseable'. */
export function recordExercise(store, id, { status, seed }, now = new Date()) {
  return store.update((d) => {
    const prev = d.exercises[id] ?? { attempts: 0, correct: 0 };
    const next = {
      attempts: prev.attempts + 1,
      correct: prev.correct + (status === 'correct' ? 1 : 0),
      lastStatus: status,
      updatedAt: now.toISOString(),
    };
    if (seed !== undefined) next.lastSeed = seed;
    d.exercises[id] = next;
  });
}

/** A finished quiz: score out of total, appended to its history (oldest dropped past the cap). */
export function recordQuiz(store, id, { score, total }, now = new Date()) {
  return store.update((d) => {
    const history = [...(d.quizzes[id] ?? []), { at: now.toISOString(), score, total }];
    d.quizzes[id] = history.slice(-MAX_QUIZ_HISTORY);
  });
}

/** A try-without-code prediction (a number or a choice id), replacing the previous one. */
export function recordGuess(store, id, value, now = new Date()) {
  return store.update((d) => {
    d.guesses[id] = { value, at: now.toISOString() };
  });
}

/** The text key a page shows for a store notice. */
export const noticeKey = (notice) => `practice.notice.${notice.code}`;
