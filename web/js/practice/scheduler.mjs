// Flashcard scheduling with FSRS (the ts-fsrs library). Cards are kept in the
// progress store in their serialized form (plain JSON, dates as ISO strings);
// this module converts at the boundary and never touches storage itself,
// except through recordReview(store, …).
//
// Why the library is a parameter: the page loads ts-fsrs from
// build/site/vendor/ts-fsrs/index.mjs (see ./fsrs.mjs, the browser shim), while
// Node tests load it from node_modules (`await import('ts-fsrs')`). A relative
// import cannot point at both, so createScheduler(lib) receives it.
//
// Fuzz is off: with a deck of a few dozen cards, spreading due dates buys
// nothing and deterministic intervals are easier to test and explain.

export const GRADES = ['again', 'hard', 'good', 'easy'];

export function createScheduler(lib, { requestRetention = 0.9, maximumInterval = 365 } = {}) {
  const { fsrs, generatorParameters, createEmptyCard, Rating } = lib;
  const engine = fsrs(
    generatorParameters({ request_retention: requestRetention, maximum_interval: maximumInterval, enable_fuzz: false }),
  );
  const RATING = { again: Rating.Again, hard: Rating.Hard, good: Rating.Good, easy: Rating.Easy };

  /** ts-fsrs Card → JSON-safe object for the store. */
  function serialize(card) {
    const out = {
      due: new Date(card.due).toISOString(),
      stability: card.stability,
      difficulty: card.difficulty,
      elapsed_days: card.elapsed_days,
      scheduled_days: card.scheduled_days,
      learning_steps: card.learning_steps,
      reps: card.reps,
      lapses: card.lapses,
      state: card.state,
    };
    if (card.last_review) out.last_review = new Date(card.last_review).toISOString();
    return out;
  }

  /** Stored object → ts-fsrs Card (Date objects). */
  function deserialize(obj) {
    const card = { ...obj, due: new Date(obj.due) };
    if (obj.last_review) card.last_review = new Date(obj.last_review);
    else delete card.last_review;
    return card;
  }

  const newCard = (now = new Date()) => serialize(createEmptyCard(now));

  /** Review a stored card with 'again'|'hard'|'good'|'easy' at `now` → the new stored card. */
  function review(stored, grade, now = new Date()) {
    if (!Object.hasOwn(RATING, grade)) throw new Error(`review: unknown grade ${grade}`);
    const { card } = engine.next(deserialize(stored), now, RATING[grade]);
    return serialize(card);
  }

  /** Due date (ISO) each grade would give, for labelling the four buttons. */
  function preview(stored, now = new Date()) {
    const all = engine.repeat(deserialize(stored), now);
    return Object.fromEntries(GRADES.map((g) => [g, all[RATING[g]].card.due.toISOString()]));
  }

  const isDue = (stored, now = new Date()) => Date.parse(stored.due) <= now.getTime();

  /**
   * Ids of the cards due at `now`, most overdue first. `allIds` (the deck) adds
   * cards never seen, which are due at once, after the overdue ones, in deck order.
   */
  function dueCards(cards, now = new Date(), allIds = []) {
    const seen = Object.entries(cards)
      .filter(([, c]) => isDue(c, now))
      .sort(([a, x], [b, y]) => Date.parse(x.due) - Date.parse(y.due) || (a < b ? -1 : 1))
      .map(([id]) => id);
    return [...seen, ...allIds.filter((id) => !Object.hasOwn(cards, id))];
  }

  /** Review card `id` inside the progress store (creating it if new). → store.update's result */
  function recordReview(store, id, grade, now = new Date()) {
    return store.update((d) => {
      d.cards[id] = review(d.cards[id] ?? newCard(now), grade, now);
    });
  }

  return { serialize, deserialize, newCard, review, preview, isDue, dueCards, recordReview };
}
