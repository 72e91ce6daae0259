// The one markup parser (web/js/i18n/markup.mjs), which the page (i18n.mjs), the build's prose
// checks (text-checks.mjs) and the static pages (make-site.mjs) all read prose with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMarkup, markupProblems, markupPlain, hasNode } from '../../web/js/i18n/markup.mjs';
import { checkMarkup, stripIsolates, latinOutsideIsolates } from '../../build-scripts/text-checks.mjs';

test('parseMarkup reads code, math, bold, placeholders and escapes', () => {
  assert.deepEqual(parseMarkup('**a [n]** `x` $q_1$ \\$5 [1, 1]'), [
    { type: 'strong', parts: [{ type: 'text', s: 'a ' }, { type: 'ph', name: 'n' }] },
    { type: 'text', s: ' ' },
    { type: 'code', parts: [{ type: 'text', s: 'x' }] },
    { type: 'text', s: ' ' },
    { type: 'math', s: 'q_1' },
    { type: 'text', s: ' $5 [1, 1]' },
  ]);
});

test('markupProblems names each delimiter left open, and only those', () => {
  assert.deepEqual(markupProblems('a `b'), ['unbalanced backtick']);
  assert.deepEqual(markupProblems('a $b'), ['unbalanced $']);
  assert.deepEqual(markupProblems('**a'), ['unbalanced **']);
  assert.deepEqual(markupProblems('**a `b** c'), ['unbalanced backtick', 'unbalanced **']);
  for (const fine of ['`a $ b`', '`**`', '\\$ 5', '\\` x', '$a**b$', '**a** `b` $c$', 'x \\*\\* y']) {
    assert.deepEqual(markupProblems(fine), [], fine);
  }
});

test('checkMarkup reports what the parser finds, and math in a section title', () => {
  const errors = checkMarkup('fa', { 'a.x': 'ok `code`', 'a.y': 'bad `code', 'a.z': '5\\$ ok', 's3.title': 'A $O(n)$ title', 's4.title': 'fine' });
  assert.deepEqual(errors, ['fa "a.y": unbalanced backtick', 'fa "s3.title": a section title holds $…$ math, which plain-text copies of it show raw']);
});

test('the Latin check skips code, math and placeholders, not bold', () => {
  assert.deepEqual(latinOutsideIsolates('متن `softmax` $QK^T$ [name] **Hello**'), ['Hello']);
  assert.equal(stripIsolates('a`b`c'), 'a c');
});

test('markupPlain drops the markup and keeps placeholders and TeX as written', () => {
  assert.equal(markupPlain('**a** `b` $c^2$ [n] \\`'), 'a b c^2 [n] `');
  assert.ok(hasNode(parseMarkup('**$x$**'), 'math'));
  assert.ok(!hasNode(parseMarkup('`$x$`'), 'math'));
});
