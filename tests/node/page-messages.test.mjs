// Messages the reader sees in the Persian and Arabic pages say what happened in the page's
// language (walkthroughs of 2026-12-05: fa #12, ar #14): no engine error code such as
// `TooLarge` appears in any fa/ar string, even as code, and the error and refusal messages
// (keys with an `err` part, practice.parse.*, *.refused) have no Latin word outside their
// formulas ($…$), placeholders ([n]) and code isolates (`float32`, `WebAssembly`). s5's limit is
// written as the formula $10^{30}$, not in the compact form «١أس٣٠» that Intl writes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';

const ENGINE_CODES = ['TooLarge', 'ShapeMismatch', 'NonFinite', 'BadArgument', 'ZeroDimension',
  'EngineCrashed', 'EngineLoad', 'OutOfRange'];

function strings(lang) {
  const dir = new URL(`../../web/text/${lang}/`, import.meta.url);
  const out = [];
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.json') || f === 'terms.json') continue; // terms.json lists words to avoid
    for (const [key, value] of Object.entries(JSON.parse(readFileSync(new URL(f, dir), 'utf8')))) {
      if (typeof value === 'string' && !key.startsWith('_')) out.push([key, value]);
    }
  }
  return out;
}

const isMessage = (key) => /(^|\.)err(\.|$)/.test(key) || key.startsWith('practice.parse.') || /\.refused$/.test(key);
const latinWords = (s) => s.replace(/\$[^$]*\$/g, ' ').replace(/`[^`]*`/g, ' ').replace(/\[[A-Za-z0-9]+\]/g, ' ').match(/[A-Za-z]{2,}/g) ?? [];

for (const lang of ['fa', 'ar']) {
  test(`${lang}: no engine error code in any string`, () => {
    const found = strings(lang).filter(([, v]) => ENGINE_CODES.some((c) => v.includes(c))).map(([k]) => k);
    assert.deepEqual(found, []);
  });
  test(`${lang}: error and refusal messages have no Latin words outside formulas`, () => {
    const msgs = strings(lang).filter(([k]) => isMessage(k));
    assert.ok(msgs.length > 40, `found ${msgs.length} messages`);
    const found = msgs.map(([k, v]) => [k, latinWords(v)]).filter(([, w]) => w.length).map(([k, w]) => `${k}: ${w.join(' ')}`);
    assert.deepEqual(found, []);
  });
  test(`${lang}: s5's size limit is the formula 10^30`, () => {
    const big = strings(lang).find(([k]) => k === 's5.err.big')[1];
    assert.match(big, /\$10\^\{30\}\$/);
    assert.doesNotMatch(big, /\[max\]/);
  });
}
