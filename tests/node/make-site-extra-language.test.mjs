// make-site checks key parity for every pair of editions, not only fa/ar: a third edition added
// with --extra-languages (a registry entry and a text folder, as third-language.test.mjs in the
// browser builds it) that lacks one key is refused, naming the key and both editions that have
// it. (checkKeyParity itself on small tables: text-check.test.mjs.) Moved here from the browser
// suite: it never needed a page.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CODE = 'qaa';   // ISO 639 reserves qaa–qtz for local use
const LANGUAGE = {
  code: CODE, autonym: 'Test edition (LTR)', dir: 'ltr', intlLocale: 'en', numberingSystem: 'latn',
  decimal: '.', group: ',', font: 'vazirmatn', listSeparator: ', ', notANumber: 'NaN',
  textLoadFailed: 'The text of this page did not load. Reload the page.',
  text: { wrongLetters: {}, termProclitics: '', termEndings: '' },
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-extra-lang-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

// web/text, plus qaa/ as a copy of fa/ (the same strings: only the parity of keys matters here)
function texts(name, dropKey) {
  const textDir = path.join(dir, name);
  fs.cpSync(path.join(REPO, 'web', 'text'), textDir, { recursive: true });
  fs.cpSync(path.join(textDir, 'fa'), path.join(textDir, CODE), { recursive: true });
  if (dropKey) {
    const file = path.join(textDir, CODE, 'site.json');
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.ok(Object.hasOwn(data, dropKey));
    delete data[dropKey];
    fs.writeFileSync(file, JSON.stringify(data));
  }
  return textDir;
}

function check(textDir) {
  const extra = path.join(dir, 'extra-languages.mjs');
  fs.writeFileSync(extra, `export const LANGUAGES = [${JSON.stringify(LANGUAGE)}];\n`);
  return spawnSync(process.execPath, [path.join(REPO, 'build-scripts', 'make-site.mjs'), '--check-only',
    '--text-dir', textDir, '--extra-languages', extra], { encoding: 'utf8' });
}

test('a third edition with every key passes the check (so the refusal below is about the key)', () => {
  const r = check(texts('whole'));
  assert.equal(r.status, 0, r.stderr);
});

test('a third edition missing a key is refused, named against each edition that has it', () => {
  const r = check(texts('missing', 'site.title'));
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, new RegExp(`key "site\\.title" exists in fa but not in ${CODE}`));
  assert.match(r.stderr, new RegExp(`key "site\\.title" exists in ar but not in ${CODE}`));
});
