// Block 3, "try it yourself": the numeric exercises (nineteen) from generators.mjs
// (EXERCISES). The learner types an answer (Persian, Arabic-Indic or Latin
// digits; ٫ , . separators), which is graded against the ENGINE's value with
// the generator's stated tolerance. Unparseable input gets a message, never a
// wrong mark. Hints one at a time, then a step-by-step worked solution;
// "another example" draws fresh numbers from a new seed. Results go to the
// progress store: exercises[id] = {attempts, correct, lastStatus, lastSeed, updatedAt}.
// The tally on screen follows every change of the store (an import, another tab).
//
// data-testid hooks:
//   practice-exercise-select, practice-exercise-prev, practice-exercise-next,
//   practice-exercise (data-id, data-seed, data-state="loading|ready|error"),
//   practice-prompt, practice-answer-input, practice-check, practice-feedback (live region,
//   data-kind="ok|bad|warn", data-status="correct|wrong|unparseable"),
//   practice-hint, practice-hints (ol), practice-solution, practice-solution-steps,
//   practice-another, practice-tolerance, practice-stats.

import { EXERCISES, forDisplay } from '../generators.mjs';
import { gradeQuestion } from '../grading.mjs';
import { freshSeed } from '../random.mjs';
import { select } from '../../widgets/controls.mjs';
import { h } from '../../dom.mjs';
import { tx, p, liveRegion, say, answerField, showGrade, button, num, nextId, lessonLink } from './ui.mjs';
import { recordExercise } from '../../store/records.mjs';
import { exampleWords } from '../../lesson/worked-example.mjs';
import { getLang } from '../../i18n/i18n.mjs';

const IDS = Object.keys(EXERCISES);

// Extra params the prose uses beside the generator's: the key's token in the reader's script.
function extraParams(q) {
  if (q.id === 'sat-score' || q.id === 'sat-weight') return { word: exampleWords(getLang())[(q.params.key ?? 1) - 1] };
  return {};
}

/** Text key of a solution step (causal-weight has a two-key variant of «exps»). */
export function stepKey(step) {
  if (/\.causal-weight\.step\.exps$/.test(step.key) && step.params.e3 === undefined) return `${step.key}2`;
  return step.key;
}

// −0 (e.g. −1 × 0) would print as "−۰": show it as 0.
const noNegZero = (params) => Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Object.is(v, -0) ? 0 : v]));
/** The params a question's prompt, hints and solution steps are rendered with (tests check every [placeholder] has one). */
export const display = (q, params) => ({ ...forDisplay(noNegZero(params), q.digits), ...extraParams(q) });

/** Render the worked solution of a generated question into an <ol>. */
export function solutionList(ctx, q, testid) {
  const ol = h('ol', { class: 'steps-list', testid });
  for (const s of q.steps) {
    ol.append(h('li', {}, tx(ctx, stepKey(s), display(q, s.params))));
  }
  return ol;
}

/**
 * The hints of a generated question, one per click: a button and an <ol> that grows
 * (shared by this block and the quiz). testids: `${prefix}-hint` on the button,
 * `${prefix}-hints` on the list; noMoreKey is said in a polite note after the last hint
 * and on a click past it. Returns {button, list, note}.
 */
export function hintControl(ctx, q, { prefix, labelKey, noMoreKey }) {
  let shown = 0;
  const list = h('ol', { class: 'hints', testid: `${prefix}-hints`, hidden: true });
  const note = h('p', { class: 'note', 'aria-live': 'polite' });
  const btn = button(ctx, labelKey, {
    testid: `${prefix}-hint`,
    onClick: () => {
      note.textContent = '';
      if (shown >= q.hints.length) { note.append(tx(ctx, noMoreKey)); return; }
      const key = q.hints[shown++];
      list.hidden = false;
      list.append(h('li', {}, tx(ctx, key, display(q, q.params))));
      if (shown >= q.hints.length) note.append(tx(ctx, noMoreKey));
    },
  });
  return { button: btn, list, note };
}

export function promptNode(ctx, q) {
  return tx(ctx, q.promptKey, display(q, q.params));
}

export const toleranceOf = (q) => Math.max(q.tolerance.abs || 0, (q.tolerance.rel || 0) * Math.abs(q.answer));

/** "Accepted within …" note; integer answers (tolerance ~1e-6) must be exact. */
export function toleranceNode(ctx, q) {
  const tol = toleranceOf(q);
  if (tol < 1e-4) return tx(ctx, 'quiz.ui.exact');
  return tx(ctx, 'quiz.ui.tolerance', { tol: ctx.fmt(tol, { maximumSignificantDigits: 2 }) });
}

export async function mount(root, ctx) {
  root.append(p(ctx, 'ex.ui.intro', null, 'block-intro'));
  const saved = ctx.store.get().exercises;
  let index = 0;

  const picker = select(ctx, {
    label: 'ex.ui.pick', testid: 'practice-exercise-select', value: IDS[0],
    options: IDS.map((id, i) => ({ value: id, label: `${ctx.localize(String(i + 1))}. ${ctx.t(`ex.ui.title.${id}`)}` })),
    onChange: (id) => show(IDS.indexOf(id)),
  });
  const prev = button(ctx, 'ex.ui.prev', { testid: 'practice-exercise-prev', onClick: () => show((index - 1 + IDS.length) % IDS.length) });
  const next = button(ctx, 'ex.ui.nextEx', { testid: 'practice-exercise-next', onClick: () => show((index + 1) % IDS.length) });
  const counter = h('p', { class: 'counter', 'aria-live': 'polite' });
  root.append(h('div', { class: 'ex-nav' }, picker.el, h('div', { class: 'ex-nav-buttons' }, prev, next)), counter);

  const card = h('article', { class: 'exercise', testid: 'practice-exercise', 'aria-labelledby': 'exercise-h' });
  root.append(card);

  let current = null; // {id, q}
  let statsEl = null;  // the tally of the exercise on screen

  function statsNode(id) {
    const s = ctx.store.get().exercises[id];
    return s ? tx(ctx, 'ex.ui.stats', { correct: s.correct, attempts: s.attempts }) : tx(ctx, 'ex.ui.statsNone');
  }

  async function load(id, seed) {
    card.textContent = '';
    card.dataset.id = id;
    card.dataset.state = 'loading';
    card.append(h('h3', { id: 'exercise-h' }, tx(ctx, `ex.ui.title.${id}`)), p(ctx, 'ex.ui.loading', null, 'note'));
    let q;
    try {
      q = await EXERCISES[id].generate(seed, ctx.engine);
    } catch (err) {
      console.error(err);
      card.lastChild.remove();
      card.append(ctx.errorNode(err));
      card.dataset.state = 'error';
      return;
    }
    if (card.dataset.id !== id) return; // the learner moved on meanwhile
    current = { id, q };
    card.dataset.seed = String(q.seed);
    render();
  }

  function render() {
    const { id, q } = current;
    card.textContent = '';
    const feedback = liveRegion('practice-feedback');
    const hint = hintControl(ctx, q, { prefix: 'practice', labelKey: 'ex.ui.hint', noMoreKey: 'ex.ui.noMoreHints' });
    const solution = h('div', { class: 'steps', testid: 'practice-solution-box', hidden: true });
    const stats = h('p', { class: 'note', testid: 'practice-stats' }, statsNode(id));
    statsEl = stats;

    const check = () => {
      const res = gradeQuestion(field.input.value, q);
      const status = showGrade(ctx, feedback, res, { digits: 4 });
      feedback.dataset.status = status;
      field.input.setAttribute('aria-invalid', status === 'correct' ? 'false' : 'true');
      if (status === 'unparseable') { field.input.focus(); return; }
      // a refused save is shown by the page (a 'not-saved' notice); the tally shows what is kept
      if (recordExercise(ctx.store, id, { status, seed: q.seed }).ok) {
        stats.textContent = '';
        stats.append(statsNode(id));
      }
    };
    const field = answerField(ctx, { labelKey: 'ex.ui.answer', testid: 'practice-answer-input', onEnter: check });
    field.input.setAttribute('aria-describedby', `${card.id || (card.id = nextId('ex'))}-tol`);

    const solBtn = button(ctx, 'ex.ui.solution', {
      testid: 'practice-solution',
      onClick: () => {
        solution.hidden = false;
        solBtn.setAttribute('aria-expanded', 'true');
        solution.focus();
      },
    });
    solBtn.setAttribute('aria-expanded', 'false');
    solution.tabIndex = -1;
    solution.append(h('h4', {}, tx(ctx, 'ex.ui.solutionTitle')), solutionList(ctx, q, 'practice-solution-steps'), lessonLink(ctx, 'ex', id) || '');
    const another = button(ctx, 'ex.ui.another', { testid: 'practice-another', onClick: () => load(id, freshSeed()) });

    card.append(
      h('h3', { id: 'exercise-h' }, tx(ctx, `ex.ui.title.${id}`)),
      h('p', { class: 'prompt', testid: 'practice-prompt' }, promptNode(ctx, q)),
      h('div', { class: 'answer-row' }, field.el, button(ctx, 'ex.ui.check', { primary: true, testid: 'practice-check', onClick: check })),
      h('p', { class: 'note', id: `${card.id}-tol`, testid: 'practice-tolerance' }, toleranceNode(ctx, q)),
      feedback,
      h('div', { class: 'actions' }, hint.button, solBtn, another),
      hint.list, hint.note, solution,
      h('div', { class: 'ex-meta' }, stats, h('p', { class: 'note' }, tx(ctx, 'ex.ui.seed', { seed: ctx.localize(String(q.seed)) }))),
    );
    card.dataset.state = 'ready';
  }

  function show(i) {
    index = i;
    const id = IDS[i];
    picker.value = id;
    counter.textContent = '';
    counter.append(tx(ctx, 'ex.ui.counter', { i: i + 1, n: IDS.length }));
    const s = ctx.store.get().exercises[id];
    load(id, s && s.lastSeed !== undefined ? s.lastSeed : freshSeed());
  }

  ctx.store.subscribe(() => {
    if (!current || !statsEl) return;
    statsEl.textContent = '';
    statsEl.append(statsNode(current.id));
  });

  // Resume at the exercise worked on last.
  let start = 0;
  let latest = '';
  for (const [id, s] of Object.entries(saved)) {
    if (IDS.includes(id) && s.updatedAt > latest) { latest = s.updatedAt; start = IDS.indexOf(id); }
  }
  show(start);
}
