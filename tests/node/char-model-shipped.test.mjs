// The shipped per-language models (web/models/{fa,ar}.ckpt, their settings in the
// .json next to them) load through engine.mjs as the page will load them:
// loadCharModel gives the recorded configuration and a vocabulary of the
// language's characters, forward's rows are distributions, and sampling from
// the same seed repeats and writes mostly letters of that script.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { loadEngine } from './engine-fixtures.mjs';

const engine = await loadEngine();
const models = new URL('../../web/models/', import.meta.url);

for (const lang of ['fa', 'ar']) {
  test(`${lang}: the shipped checkpoint loads, forwards and samples`, async () => {
    const info = JSON.parse(await readFile(new URL(`${lang}.json`, models), 'utf8'));
    const bytes = new Uint8Array(await readFile(new URL(`${lang}.ckpt`, models)));
    const { model, vocabulary, format } = engine.loadCharModel(bytes);
    try {
      const c = info.config;
      assert.deepEqual(
        [model.config.vocab, model.config.context, model.config.width, model.config.layers, model.config.heads, model.config.kvHeads],
        [c.vocab, c.context, c.width, c.layers, c.heads, c.kv_heads]);
      assert.equal(model.parameterCount, c.parameters);
      assert.equal(format, info.checkpoint.format.toLowerCase());
      assert.equal(vocabulary.length, c.vocab);
      const text = (ids) => String.fromCodePoint(...Array.from(ids, (i) => vocabulary[i]));
      const ids = (s) => Array.from(s, (ch) => vocabulary.indexOf(ch.codePointAt(0)));
      const prompt = ids(lang === 'fa' ? 'توجه' : 'الانتباه');
      assert.ok(prompt.every((i) => i >= 0), 'the prompt is in the vocabulary');
      const { probs } = model.forward(prompt);
      for (let t = 0; t < probs.rows; t++) {
        const sum = probs.data.subarray(t * c.vocab, (t + 1) * c.vocab).reduce((a, b) => a + b, 0);
        assert.ok(Math.abs(sum - 1) < 1e-4);
      }
      const a = model.sample(prompt, 120, { temperature: 0.8, seed: 11 });
      assert.deepEqual(model.sample(prompt, 120, { temperature: 0.8, seed: 11 }), a);
      const out = text(a);
      const letters = [...out].filter((ch) => /\p{Script=Arabic}/u.test(ch)).length;
      assert.ok(letters > 0.6 * out.length, `${lang} sample is mostly Arabic-script letters: ${out}`);
    } finally {
      model.delete();
    }
  });
}
