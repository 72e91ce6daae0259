// Which trained model an edition's chapters 13–14 read (sections/model-compute.mjs modelLanguage):
// a real edition its own (and the files are there), a test-only edition made by make-site
// --extra-languages the default edition's, said by its registry entry (modelFrom) in the site
// make-site builds; a code that is no edition is refused, never served the Persian model.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { modelLanguage } from '../../web/js/sections/model-compute.mjs';
import { LANGUAGES, languageCodes } from '../../web/js/i18n/languages.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('every edition reads its own trained model, and the files make-site copies are there', () => {
  assert.ok(languageCodes().length >= 2);
  for (const l of LANGUAGES) {
    assert.equal(l.modelFrom, undefined, `${l.code}: a real edition has no modelFrom`);
    assert.equal(modelLanguage(l.code), l.code);
    for (const f of [`web/models/${l.code}.ckpt`, `web/models/${l.code}.json`, `engine/tools/corpus/${l.code}.txt`]) {
      assert.ok(fs.existsSync(path.join(REPO, f)), `${l.code}: ${f}`);
    }
  }
});

test('a code that is no edition is refused with a message naming the registry', () => {
  for (const bad of ['xx', 'en', '', undefined, null, 'constructor', '__proto__', 'FA']) {
    assert.throws(() => modelLanguage(bad), (e) => e instanceof Error &&
      /^modelLanguage: .* is not an edition of i18n\/languages\.mjs \(fa, ar\)$/.test(e.message), String(bad));
  }
});

test('a test-only edition built by make-site --extra-languages reads the default edition\'s model', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-model-lang-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const code = 'qaa';   // ISO 639 reserves qaa–qtz for local use
  const textDir = path.join(dir, 'text');
  fs.cpSync(path.join(REPO, 'web', 'text'), textDir, { recursive: true });
  fs.cpSync(path.join(textDir, 'fa'), path.join(textDir, code), { recursive: true });
  const extra = path.join(dir, 'extra-languages.mjs');
  fs.writeFileSync(extra, `export const LANGUAGES = [${JSON.stringify({ ...LANGUAGES[0], code, autonym: 'Test edition' })}];\n`);
  const out = path.join(dir, 'site');
  const r = spawnSync(process.execPath, [path.join(REPO, 'build-scripts', 'make-site.mjs'), '--out', out,
    '--text-dir', textDir, '--extra-languages', extra], { cwd: REPO, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(fs.existsSync(path.join(out, 'models', 'fa.ckpt')));
  assert.ok(!fs.existsSync(path.join(out, 'models', `${code}.ckpt`)), 'no model is made up for the test edition');
  // the built site's own modules, as its pages load them
  const built = await import(pathToFileURL(path.join(out, 'js', 'sections', 'model-compute.mjs')).href);
  assert.equal(built.modelLanguage(code), 'fa');
  assert.equal(built.modelLanguage('ar'), 'ar');
  assert.throws(() => built.modelLanguage('qab'), /is not an edition/);
});
