// s8's online-softmax table puts the minus on one side in a whole row (walkthrough ar #9):
// with the Arabic formatter (whose negative numbers start with ALM, the right-to-left minus of
// prose), no cell keeps an ALM; every negative number starts with LRM and −∞ is isolated.
import test from 'node:test';
import assert from 'node:assert/strict';
import { formatNumber } from '../../web/js/i18n/numerals.mjs';
import { traceCells } from '../../web/js/sections/s8-trace-row.mjs';

const ALM = '\u061c', LRM = '\u200e';

for (const lang of ['ar', 'fa']) {
  test(`${lang}: every number of a trace row has the left-to-right minus`, () => {
    const fmt = (x, o) => formatNumber(x, { lang, ...o });
    const f3 = (x) => fmt(x, { minimumFractionDigits: 3, maximumFractionDigits: 3 });
    assert.ok(lang !== 'ar' || f3(-0.438).includes(ALM), 'the Arabic formatter itself writes ALM (what is fixed here)');
    const t = (key, p) => (key === 's8.arrow' ? `${p.a} ← ${p.b}` : `${p.from}–${p.to}`);
    const vec = (a) => `(${Array.from(a, f3).join(', ')})`;
    const first = { tile: 0, keyBegin: 0, keyEnd: 3, tileMax: -0.438, mOld: -Infinity, mNew: -0.438, rescale: 0, lOld: 0, lNew: 1.5, acc: [0.1, -0.2, 0.3] };
    const later = { tile: 3, keyBegin: 9, keyEnd: 10, tileMax: -1.527, mOld: -0.438, mNew: -0.438, rescale: 1, lOld: 1.5, lNew: 1.72, acc: [-1, 0, 1] };
    const [tile, keys, tmax, m, , l] = traceCells(first, { f3, fmt, t, vec });
    assert.equal(tile, fmt(1));
    assert.equal(keys, `${fmt(1)}–${fmt(3)}`);
    for (const cell of [tmax, m, l]) assert.ok(!cell.includes(ALM), `${JSON.stringify(cell)} has no ALM`);
    assert.ok(tmax.startsWith(LRM), 'a negative tile max starts with LRM');
    assert.ok(m.startsWith('\u2066−∞\u2069'), 'm starts from an isolated −∞');
    const row2 = traceCells(later, { f3, fmt, t, vec });
    assert.equal(row2[1], fmt(10), 'a one-key tile is one number');
    assert.ok(row2[2].startsWith(LRM) && !row2.slice(0, 6).join('').includes(ALM));
  });
}
