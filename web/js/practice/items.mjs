// The practice items are the ones the text files hold: a flashcard is `cards.<id>.q`, a
// multiple-choice question `quiz.<id>.stem`, a myth `myth.<id>.myth`. A card, question or
// myth added to every language's text file appears with no code change (the build refuses
// a key missing in one language); its lesson link lives in lesson-links.mjs, and a myth's live
// demo, if it has one, in blocks/myth-fact.mjs. Ids keep the text file's order.

const FIELD = { cards: 'q', quiz: 'stem', myth: 'myth' };

/** Ids of the `area`'s items among `keys` (the page's text keys), in text order. */
export function itemIds(keys, area) {
  const field = FIELD[area];
  if (!field) throw new Error(`itemIds: unknown area ${area}`);
  const re = new RegExp(`^${area}\\.([A-Za-z0-9-]+)\\.${field}$`);
  const ids = [];
  for (const k of keys) {
    const m = re.exec(k);
    if (m && m[1] !== 'ui' && !ids.includes(m[1])) ids.push(m[1]);
  }
  return ids;
}
