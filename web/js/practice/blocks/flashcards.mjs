// Block 4, quick-review flashcards: the cards of the text files (cards.<id>.q/.a, see
// practice/items.mjs) covering the whole lesson, scheduled with FSRS (ts-fsrs via ../scheduler.mjs + ../fsrs.mjs).
// Cards whose answer is a number fill it from the engine (sat's score and
// weight, byte counts, the online-softmax difference, …). Each grade button
// shows the interval it would give; grading saves the card in the progress
// store (cards[id]). When the store changes from outside this block (an import,
// another tab), the counts follow and, unless an answer is showing, the session is
// drawn again from the cards now due.
//
// Keyboard (announced on screen): Space / Enter reveal the answer, 1–4 grade
// Again / Hard / Good / Easy, while focus is inside this block (not in a text field).
//
// data-testid hooks:
//   flashcard (data-id, data-side="front|back"), flashcard-front, flashcard-back,
//   flashcard-reveal, flashcard-grade-1 … flashcard-grade-4 (each with data-due = ISO
//   date that grade would give), flashcard-due (the card's due status / result of
//   grading), flashcard-summary (due / new counts), flashcard-live (engine values
//   state, data-state="loading|ready|error"), flashcard-done, flashcard-study-ahead,
//   flashcard-keys (the shortcut help).

import { numberLocale } from '../../i18n/numerals.mjs';
import { GRADES } from '../scheduler.mjs';
import { h } from '../../dom.mjs';
import { tx, p, liveRegion, say, button, num, mat, lessonLink } from './ui.mjs';
import { projectQKV } from '../../lesson/worked-example.mjs';
import { textKeys } from '../../i18n/i18n.mjs';
import { itemIds } from '../items.mjs';



// Engine values used by the cards, computed once per page.
async function liveValues(engine) {
  const { q, k, v } = await projectQKV(engine);
  const [a, uni, causal, mb8k, mb32k, b64, gib128, dec128, trace] = await Promise.all([
    engine.attention({ q, k, v, returnWeights: true }),
    engine.rowStats(mat(1, 8, Array(8).fill(1 / 8))),
    engine.attention({ q: mat(4, 2, Array(8).fill(0)), k: mat(4, 2, Array(8).fill(0)), v: mat(4, 1, [0, 0, 0, 0]), causal: true, returnWeights: true }),
    engine.scoreMatrixBytes({ n: 8192, bytesPerElement: 2 }),
    engine.scoreMatrixBytes({ n: 32768, bytesPerElement: 2 }),
    engine.scoreMatrixBytes({ n: 64, bytesPerElement: 2 }),
    engine.scoreMatrixBytes({ n: 131072, bytesPerElement: 4 }),
    engine.scoreMatrixBytes({ n: 128000, bytesPerElement: 4 }),
    engine.onlineSoftmaxTrace({ q, k, v, row: 2, blockK: 2 }),
  ]);
  return {
    satScore: a.scores.data[2 * 4 + 2],
    satWeight: a.weights.data[2 * 4 + 2],
    satOut: [a.out.data[4], a.out.data[5]],
    uniform8: uni.entropy[0],
    causalThird: causal.weights.data[2 * 4],
    mb8k, mb32k, b64, gib128, dec128,
    traceDiff: trace.maxAbsDiff,
  };
}

// Params of the cards with live numbers (answers only).
function cardParams(ctx, id, L) {
  if (!L) return null;
  switch (id) {
    case 'c08': return { score: num(ctx, L.satScore, 2) };
    case 'c09': return { pct: ctx.pct(L.satWeight, { maximumFractionDigits: 0 }) };
    case 'c14': return { h: num(ctx, L.uniform8, 3) };
    case 'c21': return { w: num(ctx, L.causalThird, 3) };
    case 'c25': return { mb: num(ctx, L.mb8k / 1e6, 0) };
    case 'c26': return { mb: num(ctx, L.mb32k / 1e6, 0) };
    case 'c27': return { bytes: ctx.fmt(L.b64) };
    case 'c28': return { gb: num(ctx, 2 ** 36 / 1e9 /* 64 GiB */, 1) };
    case 'c29': return { gb: num(ctx, L.gib128 / 1e9, 1), gb2: num(ctx, L.dec128 / 1e9, 1) };
    case 'c33': return { diff: ctx.fmt(L.traceDiff, { maximumSignificantDigits: 2 }) };
    case 'c35': return { o1: num(ctx, L.satOut[0], 2), o2: num(ctx, L.satOut[1], 2) };
    default: return null;
  }
}
const LIVE = new Set(['c08', 'c09', 'c14', 'c21', 'c25', 'c26', 'c27', 'c28', 'c29', 'c33', 'c35']);

function relTime(ctx, iso, now) {
  const rtf = new Intl.RelativeTimeFormat(numberLocale(ctx.lang, ctx.latinDigits), { numeric: 'auto' });
  const ms = Date.parse(iso) - now.getTime();
  const min = Math.round(ms / 60000);
  if (Math.abs(min) < 60) return rtf.format(Math.max(min, 0), 'minute');
  const hours = Math.round(ms / 3600000);
  if (Math.abs(hours) < 24) return rtf.format(hours, 'hour');
  return rtf.format(Math.round(ms / 86400000), 'day');
}

export async function mount(root, ctx) {
  // ts-fsrs is loaded here, so a missing vendor file breaks only this block.
  const { scheduler } = await import('../fsrs.mjs');

  root.append(p(ctx, 'cards.ui.intro', null, 'block-intro'));
  root.append(h('p', { class: 'keys-help', testid: 'flashcard-keys', id: 'flashcard-keys' }, tx(ctx, 'cards.ui.keys')));
  const summary = h('p', { class: 'note', testid: 'flashcard-summary', 'aria-live': 'polite' });
  const liveState = h('span', { class: 'visually-hidden', testid: 'flashcard-live', dataset: { state: 'loading' } });
  root.append(summary, liveState);

  let L = null;
  const liveReady = liveValues(ctx.engine).then((v) => { L = v; liveState.dataset.state = 'ready'; }, (err) => {
    console.error(err);
    liveState.dataset.state = 'error';
  });

  const card = h('article', { class: 'flashcard', testid: 'flashcard', tabindex: '0', 'aria-describedby': 'flashcard-keys', 'aria-labelledby': 'flashcard-progress' });
  const status = liveRegion('flashcard-due', { cls: 'flashcard-status' });
  root.append(card, status);

  let queue = [];
  let ahead = false;   // studying ahead (the session's queue is the whole deck)
  let pos = 0;
  let revealed = false;
  let gradeButtons = [];
  let revealBtn = null;

  // the deck: every card of the text (practice/items.mjs), in text order
  const DECK = itemIds(textKeys(), 'cards');
  const deckIds = () => DECK;
  function refreshSummary() {
    const now = new Date();
    const cards = ctx.store.get().cards;
    const due = scheduler.dueCards(cards, now, []).filter((id) => DECK.includes(id)).length;
    const fresh = DECK.filter((id) => !Object.hasOwn(cards, id)).length;
    summary.textContent = '';
    summary.append(tx(ctx, 'cards.ui.deckSize', { n: DECK.length }), ' ', tx(ctx, 'cards.ui.dueCount', { due, new: fresh }));
  }

  function startSession(studyAhead = false) {
    ahead = studyAhead;
    const now = new Date();
    const cards = ctx.store.get().cards;
    if (ahead) {
      queue = [...DECK].sort((a, b) => Date.parse(cards[a]?.due ?? 0) - Date.parse(cards[b]?.due ?? 0));
    } else {
      queue = scheduler.dueCards(cards, now, deckIds()).filter((id) => DECK.includes(id));
    }
    pos = 0;
    showCard();
  }

  function showDone() {
    card.textContent = '';
    card.dataset.side = 'done';
    delete card.dataset.id;
    const cards = ctx.store.get().cards;
    const next = Object.entries(cards).filter(([id]) => DECK.includes(id)).map(([, c]) => c.due).sort()[0];
    const msg = next
      ? tx(ctx, 'cards.ui.done', { when: relTime(ctx, next, new Date()) })
      : tx(ctx, 'cards.ui.doneNoDue');
    card.append(h('h3', { id: 'flashcard-progress' }, tx(ctx, 'cards.ui.title')),
      h('p', { testid: 'flashcard-done' }, msg),
      button(ctx, 'cards.ui.studyAhead', { testid: 'flashcard-study-ahead', onClick: () => { startSession(true); card.focus(); } }));
  }

  function showCard() {
    refreshSummary();
    if (pos >= queue.length) { showDone(); return; }
    const id = queue[pos];
    revealed = false;
    card.textContent = '';
    card.dataset.id = id;
    card.dataset.side = 'front';
    const stored = ctx.store.get().cards[id];
    const now = new Date();
    const dueText = stored ? tx(ctx, 'cards.ui.due', { when: relTime(ctx, stored.due, now) }) : tx(ctx, 'cards.ui.dueNew');

    const front = h('div', { class: 'card-face card-front', testid: 'flashcard-front' },
      h('p', { class: 'face-label' }, tx(ctx, 'cards.ui.front')),
      h('p', { class: 'card-text' }, tx(ctx, `cards.${id}.q`)));
    const back = h('div', { class: 'card-face card-back', testid: 'flashcard-back', hidden: true });
    revealBtn = button(ctx, 'cards.ui.reveal', { primary: true, testid: 'flashcard-reveal', onClick: reveal });
    const grades = h('div', { class: 'grades', role: 'group', 'aria-label': ctx.t('cards.ui.back'), hidden: true });
    const preview = scheduler.preview(stored ?? scheduler.newCard(now), now);
    gradeButtons = GRADES.map((g, i) => {
      const b = h('button', { type: 'button', class: 'btn grade-btn', testid: `flashcard-grade-${i + 1}`, dataset: { grade: g, due: preview[g] }, 'aria-keyshortcuts': String(i + 1) },
        h('span', { class: 'grade-key', 'aria-hidden': 'true' }, ctx.localize(String(i + 1))),
        h('span', { class: 'grade-name' }, tx(ctx, `cards.ui.grade${i + 1}`)),
        h('span', { class: 'grade-next' }, tx(ctx, 'cards.ui.gradeNext', { when: relTime(ctx, preview[g], now) })));
      b.addEventListener('click', () => grade(g, i));
      return b;
    });
    grades.append(...gradeButtons);

    card.append(
      h('p', { class: 'card-progress', id: 'flashcard-progress' }, tx(ctx, 'cards.ui.progress', { i: pos + 1, n: queue.length }), ' · ', dueText),
      front, back, h('div', { class: 'actions' }, revealBtn), grades,
    );

    async function reveal() {
      if (revealed) return;
      revealed = true;
      card.dataset.side = 'back';
      back.hidden = false;
      back.append(h('p', { class: 'face-label' }, tx(ctx, 'cards.ui.back')));
      const ans = h('p', { class: 'card-text' });
      back.append(ans);
      if (LIVE.has(id)) {
        ans.append(tx(ctx, 'cards.ui.liveWaiting'));
        await liveReady;
        ans.textContent = '';
        const params = cardParams(ctx, id, L);
        ans.append(tx(ctx, `cards.${id}.a`, params || {}));
        if (params) back.append(h('p', { class: 'note live-note' }, tx(ctx, 'cards.ui.live')));
      } else {
        ans.append(tx(ctx, `cards.${id}.a`));
      }
      back.append(lessonLink(ctx, 'cards', id) || '');
      revealBtn.hidden = true;
      grades.hidden = false;
      gradeButtons[2].focus();
    }
    card._reveal = reveal;
  }

  function grade(g, i) {
    if (!revealed) return;
    const id = queue[pos];
    const now = new Date();
    const r = scheduler.recordReview(ctx.store, id, g, now);
    const stored = ctx.store.get().cards[id];
    if (r.ok && stored) say(status, ctx, 'cards.ui.graded', { grade: ctx.t(`cards.ui.grade${i + 1}`), when: relTime(ctx, stored.due, now) }, 'info');
    // "Again" brings the card back in this session after the others.
    if (g === 'again') queue.push(id);
    pos += 1;
    showCard();
    card.focus();
  }

  root.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = e.target.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
    const onButton = tag === 'BUTTON';
    if ((e.key === ' ' || e.key === 'Enter') && !onButton && !revealed && card._reveal && card.dataset.side === 'front') {
      e.preventDefault();
      card._reveal();
      return;
    }
    const digit = { 1: 0, 2: 1, 3: 2, 4: 3, '۱': 0, '۲': 1, '۳': 2, '۴': 3, '١': 0, '٢': 1, '٣': 2, '٤': 3 }[e.key];
    if (digit !== undefined && revealed) {
      e.preventDefault();
      gradeButtons[digit].click();
    }
  });

  // Another tab or an import changed the cards: recount, and redraw the session
  // unless the learner is looking at an answer (their grade must go to that card).
  ctx.store.subscribe((data, notices, change) => {
    if (!change || change.source === 'update') return;
    if (revealed && card.dataset.side === 'back') refreshSummary();
    else startSession(ahead);
  });

  startSession(false);
}
