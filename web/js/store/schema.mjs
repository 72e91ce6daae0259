// Schema version 2 of the learner's progress, one validator per section.
// Validators never throw: each returns {value, dropped} where `value` is the
// part that passed (map sections keep every valid entry, drop the others) and
// `dropped` counts what was thrown away, so the store can say "we kept most of
// your progress" instead of wiping it. {strict: true} is used by import, where
// anything dropped means the file is refused.
//
// data = {
//   settings:  {lang: a code of languages.mjs | null, latinDigits: boolean, updatedAt?}   (updatedAt: v2, set by the store)
//   cards:     {[cardId]: {due, stability, difficulty, elapsed_days, scheduled_days,
//                          learning_steps, reps, lapses, state: 0..3, last_review?}}  (ts-fsrs Card, dates ISO)
//   exercises: {[exerciseId]: {attempts, correct, lastStatus?, lastSeed?, updatedAt}}
//   quizzes:   {[quizId]: [{at, score, total}]}   newest last, at most MAX_QUIZ_HISTORY
//   guesses:   {[guessId]: {value: number|string, at}}   try-without-code predictions
//   rounds:    {[quizId]: {items, i, score, done, startedAt?, updatedAt}}   (v2) the quiz round in
//              progress, so it survives a reload: items, one per question, of a kind of QUESTION_KINDS
//              (below: {kind: 'mcq', id, order: [choice ids]} | {kind: 'numeric', id, seed?}),
//              i = the first item not answered yet, score = right first answers among items[0..i);
//              startedAt = when the round was drawn (tells one round from the next across tabs);
//              a finished round stays with done: true (a later merge must not bring it back)
// }
// Dates are ISO 8601 strings; every record carries the time it last changed, so two
// copies (two tabs, an imported file) merge record by record (merge.mjs).
//
// Versions: 1 had no `rounds` and no settings.updatedAt. MIGRATIONS[v] turns data of
// version v into version v + 1; migrate() runs them in turn before validation.

import { isLanguage } from '../i18n/languages.mjs';

export const SCHEMA_VERSION = 2;
export const MAX_QUIZ_HISTORY = 50;
export const MAX_ROUND_ITEMS = 50;
const MAX_ID_LENGTH = 100;
const MAX_GUESS_TEXT = 200;

export function emptyData() {
  return {
    settings: { lang: null, latinDigits: false },
    cards: {},
    exercises: {},
    quizzes: {},
    guesses: {},
    rounds: {},
  };
}

const MIGRATIONS = {
  // v1 → v2: the new `rounds` section starts empty; settings have no stamp yet (oldest).
  1: (d) => ({ ...d, rounds: {} }),
};

/** Data of an older version → data in the current layout (not yet validated). Unknown versions pass as they are. */
export function migrate(raw, version) {
  let d = raw;
  // Start at the oldest version with a migration: a hostile "version": -1e300 must not
  // loop up from there (and v++ does not even change numbers beyond 2^53).
  const first = Math.min(...Object.keys(MIGRATIONS).map(Number));
  for (let v = Math.max(version, first); v < SCHEMA_VERSION; v++) {
    if (isObject(d) && Object.hasOwn(MIGRATIONS, v)) d = MIGRATIONS[v](d);
  }
  return d;
}

// ---------------------------------------------------------------- field checks
const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const isCount = (x) => Number.isInteger(x) && x >= 0;
const isFiniteNumber = (x) => typeof x === 'number' && Number.isFinite(x);
// Full ISO 8601 as Date.prototype.toISOString writes it; other date strings are refused.
const isIsoDate = (x) =>
  typeof x === 'string' &&
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(x) &&
  !Number.isNaN(Date.parse(x));
// '__proto__' as a key of a plain object would set its prototype, not add an entry.
const isId = (k) => typeof k === 'string' && k.length > 0 && k.length <= MAX_ID_LENGTH && k !== '__proto__';

function validCard(c) {
  return (
    isObject(c) &&
    isIsoDate(c.due) &&
    isFiniteNumber(c.stability) && c.stability >= 0 &&
    isFiniteNumber(c.difficulty) && c.difficulty >= 0 &&
    // Day counts are whole numbers in ts-fsrs 5 but only their sign matters to us.
    isFiniteNumber(c.elapsed_days) && c.elapsed_days >= 0 &&
    isFiniteNumber(c.scheduled_days) && c.scheduled_days >= 0 &&
    isCount(c.learning_steps) &&
    isCount(c.reps) &&
    isCount(c.lapses) &&
    [0, 1, 2, 3].includes(c.state) &&
    (c.last_review === undefined || isIsoDate(c.last_review))
  );
}

function validExercise(e) {
  return (
    isObject(e) &&
    isCount(e.attempts) &&
    isCount(e.correct) && e.correct <= e.attempts &&
    (e.lastStatus === undefined || ['correct', 'wrong', 'unparseable'].includes(e.lastStatus)) &&
    (e.lastSeed === undefined || (Number.isInteger(e.lastSeed) && e.lastSeed >= 0 && e.lastSeed < 2 ** 32)) &&
    isIsoDate(e.updatedAt)
  );
}

const validQuizResult = (r) =>
  isObject(r) && isIsoDate(r.at) && isCount(r.score) && Number.isInteger(r.total) && r.total > 0 && r.score <= r.total;

const isChoiceId = (x) => typeof x === 'string' && x.length > 0 && x.length <= 20;
const isSeed = (x) => Number.isInteger(x) && x >= 0 && x < 2 ** 32;

/**
 * The kinds of quiz question a saved round can hold: the one table that the quiz
 * (practice/blocks/quiz.mjs) and this schema share. Per kind:
 *   valid(item)   the item's own fields (beside kind and id) are well formed
 *   record(item)  the item as the store keeps it (the quiz's live item may carry more)
 * A new kind is one entry here and its question in quiz.mjs QUIZ_KINDS (draw, known, show;
 * tests/node/quiz-kinds.test.mjs fails while one table lacks it); a round holding it is then
 * saved, merged, exported, read back and resumed like the others.
 */
export const QUESTION_KINDS = {
  mcq: {
    valid: (it) => Array.isArray(it.order) && it.order.length >= 2 && it.order.length <= 8 && it.order.every(isChoiceId) &&
      new Set(it.order).size === it.order.length && it.seed === undefined,
    record: (it) => ({ kind: 'mcq', id: it.id, order: [...it.order] }),
  },
  numeric: {
    valid: (it) => it.order === undefined && (it.seed === undefined || isSeed(it.seed)),
    record: (it) => (it.seed === undefined ? { kind: 'numeric', id: it.id } : { kind: 'numeric', id: it.id, seed: it.seed }),
  },
};

const validRoundItem = (it) =>
  isObject(it) && isId(it.id) && typeof it.kind === 'string' && Object.hasOwn(QUESTION_KINDS, it.kind) &&
  QUESTION_KINDS[it.kind].valid(it);

const validRound = (r) =>
  isObject(r) &&
  Array.isArray(r.items) && r.items.length > 0 && r.items.length <= MAX_ROUND_ITEMS && r.items.every(validRoundItem) &&
  isCount(r.i) && r.i <= r.items.length &&
  isCount(r.score) && r.score <= r.i &&
  typeof r.done === 'boolean' &&
  (r.startedAt === undefined || isIsoDate(r.startedAt)) &&
  isIsoDate(r.updatedAt);

const validGuess = (g) =>
  isObject(g) &&
  (isFiniteNumber(g.value) || (typeof g.value === 'string' && g.value.length <= MAX_GUESS_TEXT)) &&
  isIsoDate(g.at);

// ---------------------------------------------------------------- section validators

// A map section: keep valid entries. Entries are copied field by field through
// JSON so no prototype tricks or extra references survive.
function mapSection(validEntry, normalize = (v) => v) {
  return (raw) => {
    if (!isObject(raw)) return { value: {}, dropped: raw === undefined ? 0 : 1 };
    const value = {};
    let dropped = 0;
    for (const [k, v] of Object.entries(raw)) {
      const n = normalize(v);
      if (isId(k) && n !== undefined && validEntry(n)) value[k] = JSON.parse(JSON.stringify(n));
      else dropped++;
    }
    return { value, dropped };
  };
}

function settingsSection(raw) {
  const value = emptyData().settings;
  if (!isObject(raw)) return { value, dropped: raw === undefined ? 0 : 1 };
  let dropped = 0;
  if (isLanguage(raw.lang) || raw.lang === null) value.lang = raw.lang;
  else if (raw.lang !== undefined) dropped++;
  if (typeof raw.latinDigits === 'boolean') value.latinDigits = raw.latinDigits;
  else if (raw.latinDigits !== undefined) dropped++;
  if (isIsoDate(raw.updatedAt)) value.updatedAt = raw.updatedAt;
  else if (raw.updatedAt !== undefined) dropped++;
  return { value, dropped };
}

// A quiz history keeps its valid results (newest last, capped); a history that
// is not an array is dropped whole.
function quizHistory(list) {
  if (!Array.isArray(list)) return undefined;
  const kept = list.filter(validQuizResult);
  if (kept.length !== list.length) return undefined; // partial history: drop the whole quiz entry
  return kept.slice(-MAX_QUIZ_HISTORY);
}

export const SECTIONS = {
  settings: settingsSection,
  cards: mapSection(validCard),
  exercises: mapSection(validExercise),
  quizzes: mapSection((l) => Array.isArray(l), quizHistory),
  guesses: mapSection(validGuess),
  rounds: mapSection(validRound),
};

/**
 * Validate a whole data object. Returns {data, droppedSections: string[]}:
 * the sections that lost anything (missing sections are silently created).
 */
export function validateData(raw) {
  const data = emptyData();
  const droppedSections = [];
  const src = isObject(raw) ? raw : {};
  for (const [name, validate] of Object.entries(SECTIONS)) {
    const { value, dropped } = validate(Object.hasOwn(src, name) ? src[name] : undefined);
    data[name] = value;
    if (dropped > 0) droppedSections.push(name);
  }
  if (!isObject(raw)) droppedSections.push(...Object.keys(SECTIONS).filter((s) => !droppedSections.includes(s)));
  return { data, droppedSections };
}

/** True when raw passes with nothing dropped and every section present (import). */
export function isCompleteData(raw) {
  if (!isObject(raw)) return false;
  if (!Object.keys(SECTIONS).every((s) => Object.hasOwn(raw, s))) return false;
  return validateData(raw).droppedSections.length === 0;
}
