// web/js/widgets/cell-number.mjs: the forms a heatmap cell may draw a number in, most precise
// first, and the choice of the first that fits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { numberForms, fitNumber } from '../../web/js/widgets/cell-number.mjs';
import { formatNumber } from '../../web/js/i18n/numerals.mjs';

const fmt = (lang) => (x, o) => formatNumber(x, { lang, ...o });
const strip = (s) => s.replace(/[\u200e\u061c]/g, '');

test('fa: fewer decimals first, then 3, 2, 1 significant digits × 10 to a power', () => {
  const f = numberForms(56568.54, fmt('fa'), 2).map((x) => [strip(x.text), x.sup]);
  assert.deepEqual(f, [['۵۶٬۵۶۸٫۵۴', ''], ['۵۶٬۵۶۸٫۵', ''], ['۵۶٬۵۶۹', ''],
    ['۵٫۶۶×۱۰', '۴'], ['۵٫۷×۱۰', '۴'], ['۶×۱۰', '۴']]);
});

test('ar: Arabic-Indic digits, negative values keep their minus on the left', () => {
  const f = numberForms(-1.27e9, fmt('ar'), 2);
  const sci = f.filter((x) => x.sup);
  assert.equal(sci.length, 3);
  assert.equal(sci[1].sup, '٩');
  assert.match(sci[1].text, /^\u200e?-١٫٣\u200e×\u200e١٠$/, 'marks keep × between the numbers in a left-to-right cell');
  assert.ok(!f.some((x) => x.text.includes('\u061c')), 'no ALM in a left-to-right cell');
});

test('no power-of-ten form below 1000, and rounding up renormalises the mantissa', () => {
  assert.ok(numberForms(120.5, fmt('fa'), 2).every((x) => !x.sup));
  assert.ok(numberForms(0.00012, fmt('fa'), 2).every((x) => !x.sup));
  const f = numberForms(99960, fmt('fa'), 2).filter((x) => x.sup);
  assert.ok(f.every((x) => x.sup === '۵' && strip(x.text) === '۱×۱۰'), JSON.stringify(f));
});

test('non-finite values have one form each', () => {
  assert.deepEqual(numberForms(-Infinity, fmt('fa'), 2), [{ text: '−∞', sup: '' }]);
  assert.deepEqual(numberForms(NaN, fmt('fa'), 2), [{ text: '—', sup: '' }]);
});

test('fitNumber: the first form within the width, else null', () => {
  const forms = numberForms(56568.54, fmt('fa'), 2);
  const measure = (x) => (strip(x.text).length + x.sup.length) * 7;
  assert.equal(strip(fitNumber(forms, measure, 1000).text), '۵۶٬۵۶۸٫۵۴');
  assert.equal(strip(fitNumber(forms, measure, 45).text), '۵۶٬۵۶۹');
  assert.equal(strip(fitNumber(forms, measure, 40).text), '۶×۱۰');
  assert.equal(fitNumber(forms, measure, 10), null);
});
