// Schema version 1 of the learner's progress, one validator per section.
// Validators never throw: each returns {value, dropped} where `value` is the
// part that passed (map sections keep every valid entry, drop the others) and
// `dropped` counts what was thrown away, so the store can say "we kept most of
// your progress" instead of wiping it. {strict: true} is used by import, where
// anything dropped means the file is refused.
//
// data = {
//   settings:  {lang: 'fa'|'ar'|null, latinDigits: boolean}
//   cards:     {[cardId]: {due, stability, difficulty, elapsed_days, scheduled_days,
//                          learning_steps, reps, lapses, state: 0..3, last_review?}}  (ts-fsrs Card, dates ISO)
//   exercises: {[exerciseId]: {attempts, correct, lastStatus?, lastSeed?, updatedAt}}
//   quizzes:   {[quizId]: [{at, score, total}]}   newest last, at most MAX_QUIZ_HISTORY
//   guesses:   {[guessId]: {value: number|string, at}}   try-without-code predictions
// }

export const SCHEMA_VERSION = 1;
export const MAX_QUIZ_HISTORY = 50;
const MAX_ID_LENGTH = 100;
const MAX_GUESS_TEXT = 200;

export function emptyData() {
  return {
    settings: { lang: null, latinDigits: false },
    cards: {},
    exercises: {},
    quizzes: {},
    guesses: {},
  };
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
const isId = (k) => typeof k === 'string' && k.length > 0 && k.length <= MAX_ID_LENGTH;

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
  if (raw.lang === 'fa' || raw.lang === 'ar' || raw.lang === null) value.lang = raw.lang;
  else if (raw.lang !== undefined) dropped++;
  if (typeof raw.latinDigits === 'boolean') value.latinDigits = raw.latinDigits;
  else if (raw.latinDigits !== undefined) dropped++;
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
    const { value, dropped } = validate(src[name]);
    data[name] = value;
    if (dropped > 0) droppedSections.push(name);
  }
  if (!isObject(raw)) droppedSections.push(...Object.keys(SECTIONS).filter((s) => !droppedSections.includes(s)));
  return { data, droppedSections };
}

/** True when raw passes with nothing dropped and every section present (import). */
export function isCompleteData(raw) {
  if (!isObject(raw)) return false;
  if (!Object.keys(SECTIONS).every((s) => s in raw)) return false;
  return validateData(raw).droppedSections.length === 0;
}
