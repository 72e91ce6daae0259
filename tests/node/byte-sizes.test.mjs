// Exact score-matrix byte counts (web/js/lesson/byte-sizes.mjs) and their reading in a
// unit, plus BigInt formatting and whole-number parsing in web/js/i18n/numerals.mjs
// (issue 12, items 6 and 7: section 7's calculator).
import test from 'node:test';
import assert from 'node:assert/strict';
import { scoreBytes, readable } from '../../web/js/lesson/byte-sizes.mjs';
import { formatNumber, parseNumber } from '../../web/js/i18n/numerals.mjs';
import { setText, t } from '../../web/js/i18n/i18n.mjs';
import { DTYPES } from '../../web/js/sections/s7-quadratic-cost.mjs';
import { loadTextDir } from '../../build-scripts/text-checks.mjs';
import { fileURLToPath } from 'node:url';

test('the largest case is exactly 2^72 bytes, every digit kept', () => {
  const b = scoreBytes({ n: 4194304, bytesPerElement: 4, heads: 256, layers: 256, batch: 1024 });
  assert.equal(b, 2n ** 72n);
  assert.equal(String(b), '4722366482869645213696');
  // formatted as a Number, Intl keeps 17 significant digits: the defect the BigInt path fixes
  assert.equal(formatNumber(Number(b), { lang: 'fa', latinDigits: true }), '4,722,366,482,869,645,000,000');
  assert.equal(formatNumber(b, { lang: 'fa' }), '۴٬۷۲۲٬۳۶۶٬۴۸۲٬۸۶۹٬۶۴۵٬۲۱۳٬۶۹۶');
  assert.equal(formatNumber(b, { lang: 'ar' }), '٤٬٧٢٢٬٣٦٦٬٤٨٢٬٨٦٩٬٦٤٥٬٢١٣٬٦٩٦');
  assert.equal(formatNumber(b, { lang: 'fa', latinDigits: true }), '4,722,366,482,869,645,213,696');
  // an odd product that is not a power of two and passes 2^53
  const odd = scoreBytes({ n: 4194301, bytesPerElement: 2, heads: 255, layers: 253, batch: 1023 });
  assert.equal(odd, 4194301n * 4194301n * 2n * 255n * 253n * 1023n);
  assert.ok(odd > 2n ** 53n);
});

test('readable: the largest unit reached, a few significant digits', () => {
  const b72 = 2n ** 72n;
  assert.deepEqual(pick(readable(b72, 'decimal')), ['EB', 4722.37, 0]);
  assert.deepEqual(pick(readable(b72, 'binary')), ['EiB', 4096, 0]);
  assert.equal(formatNumber(readable(b72).value, { lang: 'fa', maximumFractionDigits: readable(b72).fractionDigits }), '۴٬۷۲۲');
  // 131,072² fp32 = 64 GiB = 68.7 GB
  const k128 = scoreBytes({ n: 131072, bytesPerElement: 4 });
  assert.deepEqual(pick(readable(k128, 'binary')), ['GiB', 64, 1]);
  assert.deepEqual(pick(readable(k128, 'decimal')), ['GB', 68.72, 1]);
  // 8192² fp16 = 134,217,728 B = 134 MB = 128 MiB
  const m = scoreBytes({ n: 8192, bytesPerElement: 2 });
  assert.deepEqual(pick(readable(m, 'decimal')), ['MB', 134.22, 0]);
  assert.deepEqual(pick(readable(m, 'binary')), ['MiB', 128, 0]);
  // petabytes and tebibytes
  assert.deepEqual(pick(readable(3n * 10n ** 15n, 'decimal')), ['PB', 3, 2]);
  assert.deepEqual(pick(readable(5n * 2n ** 40n, 'binary')), ['TiB', 5, 2]);
});

test('readable: small counts are never "0 MB"; rounding up moves to the next unit', () => {
  assert.deepEqual(pick(readable(4n, 'decimal')), ['B', 4, 0]);
  assert.deepEqual(pick(readable(4n, 'binary')), ['B', 4, 0]);
  assert.deepEqual(pick(readable(999n, 'decimal')), ['B', 999, 0]);
  assert.deepEqual(pick(readable(1000n, 'decimal')), ['KB', 1, 2]);
  assert.deepEqual(pick(readable(1000n, 'binary')), ['B', 1000, 0]);
  assert.deepEqual(pick(readable(36n, 'decimal')), ['B', 36, 0]);           // n = 3, fp32
  assert.deepEqual(pick(readable(999_700n, 'decimal')), ['MB', 1, 2]);      // not "1,000 KB"
  for (const x of [1n, 7n, 1023n, 1024n, 10n ** 6n, 2n ** 33n, 10n ** 20n, 2n ** 70n]) {
    for (const sys of ['decimal', 'binary']) {
      const r = readable(x, sys);
      assert.ok(r.value >= 1, `${x} ${sys}: ${r.value} ${r.unit}`);
      assert.ok(Number(formatNumber(r.value, { lang: 'fa', latinDigits: true, maximumFractionDigits: r.fractionDigits, useGrouping: false })) > 0);
    }
  }
  assert.throws(() => scoreBytes({ n: 1.5, bytesPerElement: 4 }), RangeError);
});

test('parseNumber {integer}: commas group digits in every script', () => {
  const ok = (s, v) => assert.deepEqual(parseNumber(s, { integer: true }), { ok: true, value: v }, s);
  const bad = (s, reason) => assert.deepEqual(parseNumber(s, { integer: true }), { ok: false, reason }, s);
  ok('131,072', 131072);
  ok('128,000', 128000);
  ok('۱۳۱٬۰۷۲', 131072);
  ok('۱۲۸,۰۰۰', 128000);
  ok('١٢٨،٠٠٠', 128000);       // Arabic comma
  ok('٤٬١٩٤٬٣٠٤', 4194304);
  ok('4,194,304', 4194304);
  ok('٣٬٠٠٠', 3000);           // Arabic-Indic digits typed on the Persian page
  ok('1.5', 1.5);              // a decimal point is still a decimal point: the field refuses the fraction
  bad('1,5', 'invalid');        // in a whole-number field this is a malformed group, not 1.5
  bad('12,34', 'invalid');
  bad('', 'empty');
  // without the option the old rules hold
  assert.deepEqual(parseNumber('128,000'), { ok: false, reason: 'ambiguous' });
  assert.deepEqual(parseNumber('1,5'), { ok: true, value: 1.5 });
});

// review-ar-5 #3: the dropdown names the types as the lesson does (float32, float16, bfloat16);
// the URL values stay fp32/fp16/bf16 (links and tests use them).
test('section 7: the dtype options are named float32/float16/bfloat16 in every edition, values unchanged', () => {
  assert.deepEqual(Object.keys(DTYPES), ['fp32', 'fp16', 'bf16']);
  const { texts } = loadTextDir(fileURLToPath(new URL('../../web/text', import.meta.url)));
  for (const [lang, dict] of Object.entries(texts)) {
    setText(lang, dict);
    for (const [value, name] of [['fp32', 'float32'], ['fp16', 'float16'], ['bf16', 'bfloat16']]) {
      // as s7-quadratic-cost.mjs builds the option's label
      const label = t('s7.calc.dtypeOpt', { name: t(`s7.calc.dtypeName.${value}`), b: DTYPES[value] });
      assert.ok(label.includes(name), `${lang}: ${name} in ${label}`);
      assert.ok(!/\bfp\d|\bbf16/.test(label), `${lang}: no fp32/fp16/bf16 shown: ${label}`);
    }
  }
});

function pick(r) { return [r.unit, Math.round(r.value * 100) / 100, r.fractionDigits]; }
