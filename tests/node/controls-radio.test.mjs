// radioGroup (web/js/widgets/controls.mjs) builds ONE group per call: its options share a
// name (so the browser keeps exactly one checked and moves the choice with the arrow keys),
// and two groups on one page do not share it. Built on a fake DOM whose radios follow the
// browser's rule (tests/node/fake-dom.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { installFakeDom } from './fake-dom.mjs';
import { radioGroup } from '../../web/js/widgets/controls.mjs';

const ctx = { tNode: (key) => document.createTextNode(key) };

function group(name, values, value, heard) {
  return radioGroup(ctx, {
    legend: `${name}.legend`, name, value, onChange: (v) => heard.push(v),
    options: values.map((v) => ({ value: v, label: `${name}.${v}`, testid: `${name}-${v}` })),
  });
}

test('radioGroup: one name per group, exactly one option checked after each tap, the value follows', () => {
  const dom = installFakeDom();
  try {
    const page = document.createElement('main');
    const heardA = [], heardB = [];
    const a = group('s4-scale', ['off', 'sqrt', 'dk'], 'off', heardA);
    const b = group('s6-align', ['tl', 'br'], 'tl', heardB);
    page.append(a.el, b.el);
    const inputsA = a.el.querySelectorAll('input');
    const inputsB = b.el.querySelectorAll('input');
    assert.equal(new Set(inputsA.map((i) => i.name)).size, 1, 'the options of a group share one name');
    assert.notEqual(inputsA[0].name, inputsB[0].name, 'two groups never share a name');
    assert.equal(new Set([...inputsA, ...inputsB].map((i) => i.id)).size, 5, 'every option has its own id');

    const checked = (inputs) => inputs.filter((i) => i.checked).map((i) => i.value);
    for (const v of ['sqrt', 'dk', 'off', 'sqrt']) {
      inputsA.find((i) => i.value === v).click();
      assert.deepEqual(checked(inputsA), [v], `after tapping ${v}`);
      assert.equal(a.value, v);
      assert.deepEqual(checked(inputsB), ['tl'], 'the other group is untouched');
    }
    assert.deepEqual(heardA, ['sqrt', 'dk', 'off', 'sqrt']);
    inputsB[1].click();
    assert.deepEqual(checked(inputsB), ['br']);
    assert.deepEqual(checked(inputsA), ['sqrt']);
    a.value = 'dk';   // set without firing
    assert.deepEqual(checked(inputsA), ['dk']);
    assert.deepEqual(heardA, ['sqrt', 'dk', 'off', 'sqrt']);
  } finally {
    dom.uninstall();
  }
});
