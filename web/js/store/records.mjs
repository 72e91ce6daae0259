// The one write path of the practice blocks into the progress store: each writer
// records one kind of result in the shape schema.mjs keeps, and returns store.update's
// {ok, error?, sections?}; none throws. A refused write is never silent: the store adds a
// 'not-saved' notice that the page shows in its language (pages/practice.mjs), and the
// blocks check `ok` before saying that something was saved.

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

/** The quiz round in progress (schema.mjs `rounds`), replacing the saved one. */
export function recordRound(store, id, round) {
  return store.update((d) => { d.rounds[id] = round; });
}

/** A round just finished, in one write: kept as done (a merge must not bring it back) and
 *  its score joins the history. */
export function recordFinishedRound(store, id, round) {
  return store.update((d) => {
    d.rounds[id] = round;
    d.quizzes[id] = [...(d.quizzes[id] ?? []), { at: round.updatedAt, score: round.score, total: round.items.length }]
      .slice(-MAX_QUIZ_HISTORY);
  });
}

/** A try-without-code prediction (a number or a choice id), replacing the previous one. */
export function recordGuess(store, id, value, now = new Date()) {
  return store.update((d) => {
    d.guesses[id] = { value, at: now.toISOString() };
  });
}

/** The reader's settings: the fields of patch that are given (validated by the store). */
export function recordSettings(store, patch) {
  return store.update((d) => {
    if (patch.lang !== undefined) d.settings.lang = patch.lang;
    if (patch.latinDigits !== undefined) d.settings.latinDigits = patch.latinDigits;
  });
}
