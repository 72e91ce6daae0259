// A whole-number field whose range follows another control (walkthrough ar #13): s8's query
// row runs from 1 to the number of keys. With 10 keys, «12» is refused with the range in force
// (1…10) and the row stays, instead of being clamped silently to 10; with more keys the same
// 12 is taken. Built on the fake DOM (tests/node/fake-dom.mjs) with the page's parser.
import test from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom } from './fake-dom.mjs';
import { intField } from '../../web/js/widgets/controls.mjs';
import { parseNumber } from '../../web/js/i18n/numerals.mjs';

const ctx = {
  tNode: (key, params = {}) => document.createTextNode(`${key} ${JSON.stringify(params)}`),
  fmt: (x) => String(x),
  parseNumber,
};

test('intField: a range given as a function is checked when the reader commits, and stated', () => {
  const dom = installFakeDom();
  try {
    let keys = 10;
    const heard = [];
    const f = intField(ctx, { label: 's8.ctl.row', value: 4, min: 1, max: () => keys, errKey: 's8.err.row', testid: 's8-row', onChange: (v) => heard.push(v) });
    const type = (s) => { f.input.value = s; f.input.dispatchEvent(new Event('change')); };
    const error = () => f.el.querySelectorAll('span').find((n) => n.id.endsWith('-err')).textContent;

    type('12');
    assert.equal(f.value, 4, 'the row stays');
    assert.deepEqual(heard, []);
    assert.equal(f.input.getAttribute('aria-invalid'), 'true');
    assert.match(error(), /^s8\.err\.row /);
    assert.deepEqual(JSON.parse(error().slice('s8.err.row '.length)), { min: 1, max: 10 }, 'the message gives 1…10, the key count');

    keys = 16;
    type('12');
    assert.equal(f.value, 12);
    assert.deepEqual(heard, [12]);
    assert.equal(error(), '');

    type('17');
    assert.deepEqual(JSON.parse(error().slice('s8.err.row '.length)), { min: 1, max: 16 });
    assert.equal(f.value, 12);
  } finally {
    dom.uninstall();
  }
});
