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
export const NUMERIC = Object.keys(QUIZ);
const ROUND_MCQ = 8;
const ROUND_NUM = 4;
const QUIZ_ID = 'main';

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

  let round = null; // {items, i, score}

  function startRound() {
    const rng = createRng(freshSeed());
    const mcq = rng.shuffle(mcqIds()).slice(0, ROUND_MCQ).map((id) => ({ kind: 'mcq', id, order: rng.shuffle(['o1', 'o2', 'o3', 'o4']) }));
    const numeric = rng.shuffle(NUMERIC).slice(0, ROUND_NUM).map((id) => ({ kind: 'numeric', id }));
    round = { items: rng.shuffle([...mcq, ...numeric]), i: 0, score: 0, startedAt: new Date().toISOString() };
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
    if (item.kind === 'mcq') showMcq(item);
    else showNumeric(item, true);
  }

  function showMcq(item) {
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
        const v = group.value;
        if (!v) { say(feedback, ctx, 'quiz.ui.pickFirst', null, 'warn'); group.focusFirst(); return; }
        const right = v === 'o1';
        if (right) round.score += 1;
        saveRound({ answered: round.i + 1 });
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

  async function showNumeric(item, firstTry) {
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
      if (firstTry && status === 'correct') round.score += 1;
      if (firstTry) saveRound({ answered: round.i + 1 });
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
        actions.append(button(ctx, 'quiz.ui.retry', { testid: 'quiz-retry', onClick: () => showNumeric(item, false) }));
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
  // The round as the store keeps it (schema.mjs `rounds`): answered = items answered so far.
  const roundRecord = (r, answered, done, now) => ({
    items: r.items.map((it) => QUESTION_KINDS[it.kind].record(it)),
    i: answered, score: r.score, done, ...(r.startedAt ? { startedAt: r.startedAt } : {}), updatedAt: now.toISOString(),
  });
  let answeredHere = 0;   // the questions of this round this tab has answered (what it last saved)
  function saveRound({ answered = round.i } = {}) {
    answeredHere = answered;
    recordRound(ctx.store, QUIZ_ID, roundRecord(round, answered, false, new Date()));
  }

  // A saved round this page can show: every question still exists, options are o1…o4.
  function savedRound() {
    const r = ctx.store.get().rounds[QUIZ_ID];
    if (!r || r.done) return null;
    const known = (it) => (it.kind === 'mcq'
      ? mcqIds().includes(it.id) && it.order.length === 4 && ['o1', 'o2', 'o3', 'o4'].every((o) => it.order.includes(o))
      : NUMERIC.includes(it.id));
    if (!r.items.every(known)) return null;
    return { items: r.items.map((it) => ({ ...it, order: it.order && [...it.order] })), i: r.i, score: r.score, startedAt: r.startedAt };
  }

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
