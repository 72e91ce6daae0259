// One row of s8's online-softmax table (a tile of the traced query row), as cell texts. Every
// number in the row takes the left-to-right minus (ltrNumber), as the accumulator vector and
// −∞ beside them do: the walkthrough (ar #9) found «٠٫٤٣٨-» in one column next to «-١٫٥٢٧» in
// the next. Pure, so tests/node/s8-trace-row.test.mjs checks it with the page's formatter.
//
// Usage: traceCells(step, { f3, t, fmt, vec }) → [tile, keys, tile max, m, rescale, ℓ, acc]
//   f3(x): the page's 3-decimal formatter; t(key, params): the page's text; vec(a): the vector node

import { ltrNumber } from '../i18n/numerals.mjs';

const MINUS_INF = '\u2066−∞\u2069';   // isolated, so the minus stays left of ∞ in RTL

export function traceCells(p, { f3, fmt, t, vec }) {
  const n = (x) => (x === -Infinity || x == null ? MINUS_INF : ltrNumber(f3(x)));
  return [
    fmt(p.tile + 1),
    // a one-key tile is one number, not «10–10»
    p.keyEnd === p.keyBegin + 1 ? fmt(p.keyEnd) : t('s8.range', { from: fmt(p.keyBegin + 1), to: fmt(p.keyEnd) }),
    n(p.tileMax),
    t('s8.arrow', { a: n(p.mOld), b: n(p.mNew) }),
    n(p.rescale),
    t('s8.arrow', { a: n(p.lOld), b: n(p.lNew) }),
    vec(p.acc),
  ];
}
