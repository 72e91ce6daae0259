// s7's number-format options read «⁦float32⁩، ۴ بایت…» with one isolate around the name, not
// two (walkthrough fa #12: «⁦⁦float32⁩⁩»): the name key is `code` already, so the option's own
// text must not isolate it again. Rendered with the page's i18n t() and both text files.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setText, t } from '../../web/js/i18n/i18n.mjs';

for (const lang of ['fa', 'ar']) {
  test(`${lang}: one isolate around the dtype name in s7's select options`, () => {
    const dict = JSON.parse(readFileSync(new URL(`../../web/text/${lang}/s7.json`, import.meta.url), 'utf8'));
    setText(lang, dict);
    for (const name of ['fp32', 'fp16', 'bf16']) {
      const label = t('s7.calc.dtypeOpt', { name: t(`s7.calc.dtypeName.${name}`), b: '4' });
      assert.doesNotMatch(label, /\u2066\u2066|\u2069\u2069/, JSON.stringify(label));
      assert.equal((label.match(/\u2066/g) || []).length, 1, JSON.stringify(label));
    }
  });
}
