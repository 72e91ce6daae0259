// Block 5, "check your understanding": a pool of multiple-choice questions (every
// quiz.qNN.stem of the text, option o1 is the right one, shown shuffled) and the
// numeric question generators from generators.mjs (QUIZ), whose answers the
// engine computes from a fresh seed every time. A round draws ROUND_MCQ + ROUND_NUM
// questions; the score counts the FIRST answer to each question. A wrong numeric
// answer can be retried on a fresh instance (new seed) as often as the learner likes.
// Each finished round is saved in the progress store (quizzes.main) and the
// history is shown. The round in progress is saved too (rounds.main: the questions
// drawn, their shuffled options and numeric seeds, how many are answered and the
// score), so a reload resumes it at the first question not answered yet; the history
// follows every change of the store (an import, another tab).
//
// data-testid hooks:
//   quiz-start, quiz-question (data-kind="mcq|numeric", data-id, data-seed for numeric,
//   data-answered="true"), quiz-counter, quiz-prompt, quiz-option (radio inputs,
//   data-value="o1".."o4", o1 = right), quiz-answer-input, quiz-submit, quiz-feedback
//   (live region, data-status="correct|wrong|unparseable"), quiz-explanation,
//   quiz-hint (numeric: shows the question's hint quiz.<id>.hint.N, one per click; gone once
//   answered), quiz-hints (ol of the hints shown), quiz-retry (numeric, after a wrong answer),
//   quiz-next, quiz-score, quiz-history (ol of past rounds), quiz-best, quiz-restart.

import { QUIZ } from '../generators.mjs';
import { gradeQuestion } from '../grading.mjs';
import { createRng, freshSeed } from '../random.mjs';
import { QUESTION_KINDS } from '../../store/schema.mjs';
import { recordRound, recordFinishedRound } from '../../store/records.mjs';
import { h } from '../../dom.mjs';
import { numberLocale } from '../../i18n/languages.mjs';
import { textKeys } from '../../i18n/i18n.mjs';
import { itemIds } from '../items.mjs';
import { tx, p, liveRegion, say, choiceGroup, answerField, showGrade, button, num, lessonLink } from './ui.mjs';
import { solutionList, promptNode, toleranceNode, hintControl } from './try-yourself.mjs';

// multiple-choice questions: every quiz.<id>.stem of the text (practice/items.mjs)
const mcqIds = () => itemIds(textKeys(), 'quiz');
const MCQ_OPTIONS = ['o1', 'o2', 'o3', 'o4'];
export const NUMERIC = Object.keys(QUIZ);
const ROUND_MCQ = 8;
const ROUND_NUM = 4;
const QUIZ_ID = 'main';

/**
 * The quiz's half of each question kind; store/schema.mjs QUESTION_KINDS holds the other
 * half (how an item is checked and saved), and the two have the same kinds
 * (tests/node/quiz-kinds.test.mjs). Per kind:
 *   draw(rng)        this kind's questions of a new round
 *   known(item)      a saved item that this page can still show (its question still exists)
 *   show(v, item)    shows it; v = the mounted quiz: {ctx, round, frame, nextButton, saveRound}
 * Everything that depends on an item's kind goes through this table: a round holding a kind
 * missing here is an error (kindOf), never a question dropped or shown as another kind.
 */
export const QUIZ_KINDS = {
  mcq: {
    draw: (rng) => rng.shuffle(mcqIds()).slice(0, ROUND_MCQ).map((id) => ({ kind: 'mcq', id, order: rng.shuffle(MCQ_OPTIONS) })),
    known: (it) => mcqIds().includes(it.id) && it.order.length === MCQ_OPTIONS.length && MCQ_OPTIONS.every((o) => it.order.includes(o)),
    show: (v, item) => showMcq(v, item),
  },
  numeric: {
    draw: (rng) => rng.shuffle(NUMERIC).slice(0, ROUND_NUM).map((id) => ({ kind: 'numeric', id })),
    known: (it) => NUMERIC.includes(it.id),
    show: (v, item) => showNumeric(v, item, true),
  },
};

function kindOf(item) {
  if (Object.hasOwn(QUIZ_KINDS, item.kind) && Object.hasOwn(QUESTION_KINDS, item.kind)) return QUIZ_KINDS[item.kind];
  throw new Error(`quiz: question kind '${item.kind}' is not in both QUIZ_KINDS (practice/blocks/quiz.mjs: ` +
    `${Object.keys(QUIZ_KINDS).join(', ')}) and QUESTION_KINDS (store/schema.mjs: ${Object.keys(QUESTION_KINDS).join(', ')})`);
}

/** A new round: every kind's questions, shuffled together. */
export function drawRound(rng, now = new Date()) {
  const items = Object.keys(QUIZ_KINDS).flatMap((kind) => kindOf({ kind }).draw(rng));
  return { items: rng.shuffle(items), i: 0, score: 0, startedAt: now.toISOString() };
}

/** The round as the store keeps it (schema.mjs `rounds`): answered = items answered so far. */
export const roundRecord = (r, answered, done, now) => ({
  items: r.items.map((it) => (kindOf(it), QUESTION_KINDS[it.kind].record(it))),
  i: answered, score: r.score, done, ...(r.startedAt ? { startedAt: r.startedAt } : {}), updatedAt: now.toISOString(),
});

/** The saved round (store `rounds.main`) as a live round to resume, or null: none, done, or a
 *  question this page no longer has. Throws on a kind the quiz does not know (kindOf). */
export function resumableRound(saved) {
  if (!saved || saved.done) return null;
  if (!saved.items.every((it) => kindOf(it).known(it))) return null;
  return { items: saved.items.map((it) => structuredClone(it)), i: saved.i, score: saved.score, startedAt: saved.startedAt };
}

export async function mount(root, ctx) {
  root.append(p(ctx, 'quiz.ui.intro', { n: ROUND_MCQ + ROUND_NUM }, 'block-intro'));
  const stage = h('div', { class: 'quiz-stage' });
  const historyBox = h('div', { class: 'quiz-history-box' });
  root.append(stage, historyBox);

  function renderHistory() {
    historyBox.textContent = '';
    historyBox.append(h('h3', {}, tx(ctx, 'quiz.ui.history')));
    const list = (ctx.store.get().quizzes[QUIZ_ID] || []).slice(-10).reverse();
    if (!list.length) {
      historyBox.append(p(ctx, 'quiz.ui.historyEmpty', null, 'note'));
      return;
    }
    const best = list.reduce((b, r) => (r.score / r.total > b.score / b.total ? r : b), list[0]);
    historyBox.append(h('p', { testid: 'quiz-best' }, tx(ctx, 'quiz.ui.best', { score: best.score, total: best.total })));
    const dtf = new Intl.DateTimeFormat(numberLocale(ctx.lang, ctx.latinDigits),
      { dateStyle: 'medium', timeStyle: 'short' });
    const ol = h('ol', { class: 'quiz-history', testid: 'quiz-history' });
    for (const r of list) ol.append(h('li', {}, tx(ctx, 'quiz.ui.historyRow', { date: dtf.format(new Date(r.at)), score: r.score, total: r.total })));
    historyBox.append(ol);
  }

  function startScreen() {
    stage.textContent = '';
    stage.append(button(ctx, 'quiz.ui.start', { primary: true, testid: 'quiz-start', onClick: () => startRound() }));
  }

  let round = null; // {items, i, score, startedAt}
  // what the questions' show() use (QUIZ_KINDS)
  const view = { ctx, frame, nextButton, saveRound, get round() { return round; } };

  function startRound() {
    round = drawRound(createRng(freshSeed()));
    saveRound();
    showItem();
  }

  function frame(item) {
    stage.textContent = '';
    const art = h('article', { class: 'quiz-question', testid: 'quiz-question', dataset: { kind: item.kind, id: item.id }, 'aria-labelledby': 'quiz-counter' });
    art.append(h('p', { class: 'counter', id: 'quiz-counter', testid: 'quiz-counter' },
      tx(ctx, 'quiz.ui.question', { i: round.i + 1, n: round.items.length })));
    stage.append(art);
    return art;
  }

  function nextButton() {
    const last = round.i + 1 >= round.items.length;
    return button(ctx, last ? 'quiz.ui.finish' : 'quiz.ui.next', {
      primary: true, testid: 'quiz-next',
      onClick: () => { round.i += 1; if (round.i >= round.items.length) finish(); else showItem(); },
    });
  }

  function showItem() {
    const item = round.items[round.i];
    kindOf(item).show(view, item);
  }

  function finish() {
    const total = round.items.length;
    const score = round.score;
    // One write: the round is over (a merge must not bring it back) and joins the history.
    const r = round;
    recordFinishedRound(ctx.store, QUIZ_ID, roundRecord(r, total, true, new Date()));
    showScore(score, total);
  }

  function showScore(score, total) {
    stage.textContent = '';
    const s = h('p', { class: 'quiz-score', testid: 'quiz-score', role: 'status' }, tx(ctx, 'quiz.ui.score', { score, total }));
    stage.append(s, p(ctx, 'quiz.ui.firstTry', null, 'note'),
      button(ctx, 'quiz.ui.restart', { primary: true, testid: 'quiz-restart', onClick: () => startRound() }));
    renderHistory();
    s.tabIndex = -1;
    s.focus();
  }

  // ---------------------------------------------------------------- saved round
  let answeredHere = 0;   // the questions of this round this tab has answered (what it last saved)
  function saveRound({ answered = round.i } = {}) {
    answeredHere = answered;
    recordRound(ctx.store, QUIZ_ID, roundRecord(round, answered, false, new Date()));
  }

  const savedRound = () => resumableRound(ctx.store.get().rounds[QUIZ_ID]);

  // Another tab took the quiz further (the same round, more answers) or started a new round:
  // this tab follows, as it does for the cards, instead of going on from a stale question.
  function followStore() {
    const r = ctx.store.get().rounds[QUIZ_ID];
    if (!r || !round) return;
    const same = r.startedAt !== undefined && r.startedAt === round.startedAt;
    if (same && r.done && answeredHere < r.items.length) { round = null; showScore(r.score, r.items.length); return; }
    const next = savedRound();
    if (!next) return;
    if ((same && next.i > answeredHere) || (!same && next.startedAt && (!round.startedAt || next.startedAt > round.startedAt))) {
      round = next;
      answeredHere = next.i;
      if (round.i >= round.items.length) finish(); else showItem();
    }
  }

  ctx.store.subscribe((data, notices, change) => {
    renderHistory();
    if (change && (change.source === 'merge' || change.source === 'import')) followStore();
  });

  const resumed = savedRound();
  if (resumed) {
    round = resumed;
    answeredHere = resumed.i;
    if (round.i >= round.items.length) finish();
    else showItem();
  } else {
    startScreen();
  }
  renderHistory();
}

// ---------------------------------------------------------------- the questions, by kind (QUIZ_KINDS)
function showMcq(v, item) {
  const { ctx, frame, nextButton, saveRound } = v;
  const art = frame(item);
  const stem = h('p', { class: 'prompt', testid: 'quiz-prompt', id: 'quiz-stem' }, tx(ctx, `quiz.${item.id}.stem`));
  const group = choiceGroup(ctx, {
    testid: 'quiz-option', name: `quiz-${item.id}`,
    options: item.order.map((o) => ({ value: o, key: `quiz.${item.id}.${o}` })),
  });
  group.el.setAttribute('aria-labelledby', 'quiz-stem');
  const feedback = liveRegion('quiz-feedback');
  const actions = h('div', { class: 'actions' });
  const submit = button(ctx, 'quiz.ui.submit', {
    primary: true, testid: 'quiz-submit',
    onClick: () => {
      const choice = group.value;
      if (!choice) { say(feedback, ctx, 'quiz.ui.pickFirst', null, 'warn'); group.focusFirst(); return; }
      const right = choice === 'o1';
      if (right) v.round.score += 1;
      saveRound({ answered: v.round.i + 1 });
      group.disabled = true;
      group.markResult('o1');
      say(feedback, ctx, right ? 'quiz.ui.correct' : 'quiz.ui.wrong', null, right ? 'ok' : 'bad');
      feedback.dataset.status = right ? 'correct' : 'wrong';
      feedback.append(' ', h('span', { class: 'explanation', testid: 'quiz-explanation' }, tx(ctx, `quiz.${item.id}.why`)));
      if (!right) art.append(lessonLink(ctx, 'quiz', item.id) || '');   // back to the section that teaches it
      art.dataset.answered = 'true';
      submit.remove();
      const nb = nextButton();
      actions.append(nb);
      nb.focus();
    },
  });
  actions.append(submit);
  art.append(stem, group.el, actions, feedback);
}

async function showNumeric(v, item, firstTry) {
  const { ctx, frame, nextButton, saveRound } = v;
  const art = frame(item);
  art.dataset.state = 'loading';
  const wait = p(ctx, 'quiz.ui.computing', null, 'note');
  art.append(wait);
  let q;
  // The first instance of a question keeps its seed (saved with the round): a reload shows it again.
  const seed = firstTry && item.seed !== undefined ? item.seed : freshSeed();
  try {
    q = await QUIZ[item.id].generate(seed, ctx.engine);
  } catch (err) {
    console.error(err);
    wait.remove();
    art.append(ctx.errorNode(err), h('div', { class: 'actions' }, nextButton()));
    art.dataset.state = 'error';
    return;
  }
  wait.remove();
  if (firstTry && item.seed === undefined) { item.seed = q.seed; saveRound(); }
  art.dataset.seed = String(q.seed);
  art.dataset.state = 'ready';
  const feedback = liveRegion('quiz-feedback');
  const actions = h('div', { class: 'actions' });
  let done = false;
  const submitNow = () => {
    if (done) return;
    const res = gradeQuestion(field.input.value, q);
    const status = showGrade(ctx, feedback, res, { digits: 4 });
    feedback.dataset.status = status;
    if (status === 'unparseable') { field.input.focus(); return; }
    done = true;
    field.input.readOnly = true;
    if (firstTry && status === 'correct') v.round.score += 1;
    if (firstTry) saveRound({ answered: v.round.i + 1 });
    firstTry = false;
    const value = num(ctx, q.answer, 4);
    feedback.textContent = '';
    say(feedback, ctx, status === 'correct' ? 'quiz.ui.correctNumeric' : 'quiz.ui.wrongNumeric', { value }, status === 'correct' ? 'ok' : 'bad');
    if (res.note === 'percent-missing') feedback.append(' ', tx(ctx, 'practice.grade.percent-missing'));
    art.append(h('div', { class: 'steps', testid: 'quiz-explanation' }, solutionList(ctx, q, 'quiz-steps')));
    if (status !== 'correct') art.append(lessonLink(ctx, 'quiz', item.id) || '');
    art.dataset.answered = 'true';
    submit.remove();
    hint.button.remove();
    hint.note.textContent = '';
    if (status !== 'correct') {
      actions.append(button(ctx, 'quiz.ui.retry', { testid: 'quiz-retry', onClick: () => showNumeric(v, item, false) }));
    }
    const nb = nextButton();
    actions.append(nb);
    nb.focus();
  };
  const field = answerField(ctx, { labelKey: 'quiz.ui.answerLabel', testid: 'quiz-answer-input', onEnter: submitNow });
  const submit = button(ctx, 'quiz.ui.submit', { primary: true, testid: 'quiz-submit', onClick: submitNow });
  const hint = hintControl(ctx, q, { prefix: 'quiz', labelKey: 'quiz.ui.hint', noMoreKey: 'quiz.ui.noMoreHints' });
  actions.append(submit, hint.button);
  art.append(
    h('p', { class: 'prompt', testid: 'quiz-prompt' }, promptNode(ctx, q)),
    h('div', { class: 'answer-row' }, field.el),
    h('p', { class: 'note' }, toleranceNode(ctx, q)),
    actions, hint.list, hint.note, feedback,
  );
  if (!firstTry) field.input.focus();
}
