// Languages are data (issue 14, item 1): a third, left-to-right edition that exists only in this
// test is added by a registry entry and a text folder, with no code change, and works.
// - Its text is generated from the Persian one: every string wrapped in ⟪…⟫ (so a string the
//   pages take from anywhere but the text file shows up unwrapped) with digits made Latin.
// - make-site builds it into a temporary folder (--text-dir, --extra-languages); a second server
//   serves that folder. Its lesson and practice pages load with dir="ltr", lang="qaa" (a code
//   ISO 639 reserves for local use), numbers in its own (Latin) digits, no missing key
//   (i18n renders a missing key as ⟦key⟧), no console error, and the language switches of
//   every edition list the other two.
// - Nothing of it ships: build/site has no such edition.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { launch, newPage, assertNoIssues, REPO } from './helpers.mjs';
import { waitPage } from './lesson-helpers.mjs';
import { languageCodes } from '../../web/js/i18n/languages.mjs';
import { toLatinDigits } from '../../web/js/i18n/numerals.mjs';

const T = { timeout: 240000 };
const CODE = 'qaa';
const SOURCE = 'fa';
const TEST_LANGUAGE = {
  code: CODE, autonym: 'Test edition (LTR)', dir: 'ltr', intlLocale: 'en', numberingSystem: 'latn',
  decimal: '.', group: ',', font: 'vazirmatn', listSeparator: ', ', notANumber: 'NaN',
  textLoadFailed: 'The text of this page did not load. Reload the page.',
  text: { wrongLetters: {}, termProclitics: '', termEndings: '' },
};
const OWN_DIGITS = /[\u06f0-\u06f9\u0660-\u0669]/;   // Persian or Arabic-Indic digits

let dir, server, b, origin;

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => resolve(port)); });
  });
}

// web/text copied, plus <CODE>/ generated from SOURCE (the terms file as it is: the check it
// feeds runs over the wrapped Persian words and must still pass).
function writeTexts(textDir) {
  fs.cpSync(path.join(REPO, 'web', 'text'), textDir, { recursive: true });
  const src = path.join(textDir, SOURCE);
  const dst = path.join(textDir, CODE);
  fs.mkdirSync(dst);
  for (const f of fs.readdirSync(src)) {
    const data = JSON.parse(fs.readFileSync(path.join(src, f), 'utf8'));
    if (f !== 'terms.json') {
      for (const [k, v] of Object.entries(data)) if (!k.startsWith('_') && typeof v === 'string') data[k] = `⟪${toLatinDigits(v)}⟫`;
    }
    fs.writeFileSync(path.join(dst, f), JSON.stringify(data, null, 1));
  }
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-third-lang-'));
  writeTexts(path.join(dir, 'text'));
  const extra = path.join(dir, 'extra-languages.mjs');
  fs.writeFileSync(extra, `export const LANGUAGES = [${JSON.stringify(TEST_LANGUAGE)}];\n`);
  const built = spawnSync(process.execPath, [path.join(REPO, 'build-scripts', 'make-site.mjs'),
    '--out', path.join(dir, 'site'), '--text-dir', path.join(dir, 'text'), '--extra-languages', extra], { encoding: 'utf8' });
  assert.equal(built.status, 0, `make-site with the test edition failed:\n${built.stdout}\n${built.stderr}`);
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, [path.join(REPO, 'build-scripts', 'serve.mjs')], {
    env: { ...process.env, PORT: String(port), SITE_DIR: path.join(dir, 'site') }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    server.stdout.on('data', (d) => { if (/Serving/.test(String(d))) resolve(); });
    server.on('exit', (c) => reject(new Error(`test-edition server exited (${c})`)));
  });
  b = await launch({ origin });
});

after(async () => {
  await b?.close();
  server?.kill();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

// (the build refusing a third edition with a key missing: tests/node/make-site-extra-language.test.mjs)
for (const [kind, file] of [['lesson', 'index.html'], ['practice', 'practice.html']]) {
  test(`the test edition's ${kind} page: ltr, its own digits, every key, no console error`, T, async () => {
    const page = await newPage(b);
    await page.goto(`${origin}/${CODE}/${file}`, { timeout: 60000 });
    await waitPage(page, kind, 90000);
    const info = await page.evaluate(() => ({
      lang: document.documentElement.lang, dir: document.documentElement.dir,
      text: document.body.innerText,
      // chapters 13–14 show a trained model's own text (the test edition reads the Persian model
      // and corpus: its samples and held-out lines hold Persian digits by design)
      textOutsideModels: (() => {
        const copy = document.body.cloneNode(true);
        for (const el of copy.querySelectorAll('#model, #train')) el.remove();
        document.body.append(copy);
        copy.hidden = false;
        const t = copy.innerText;
        copy.remove();
        return t;
      })(),
      direction: getComputedStyle(document.querySelector('main')).direction,
      switches: [...document.querySelectorAll('.lang-switch')].map((a) => a.dataset.lang).sort(),
      failed: [...document.querySelectorAll('[data-state="error"]')].map((s) => s.id),
    }));
    assert.equal(info.lang, CODE);
    assert.equal(info.dir, 'ltr');
    assert.equal(info.direction, 'ltr');
    assert.deepEqual(info.failed, [], 'no section or block failed');
    assert.ok(!info.text.includes('⟦'), `a key is missing: …${info.text.slice(info.text.indexOf('⟦'), info.text.indexOf('⟦') + 60)}…`);
    const own = OWN_DIGITS.exec(info.textOutsideModels);
    assert.equal(own, null, own && `a Persian/Arabic digit on a Latin-digit page: …${info.textOutsideModels.slice(Math.max(0, own.index - 40), own.index + 20)}…`);
    assert.match(info.text, /⟪/, 'the page shows the test edition\'s text');
    assert.match(info.text, /\d/, 'the page shows numbers (in Latin digits)');
    assert.deepEqual(info.switches, languageCodes().sort(), 'the switch lists every real edition');
    assertNoIssues(page);
    await page.close();
  });
}

test('every real edition links to the test edition in that build; build/site does not have it', T, async () => {
  const page = await newPage(b);
  await page.goto(`${origin}/${SOURCE}/index.html`, { timeout: 60000 });
  await waitPage(page, 'lesson', 90000);
  const switches = await page.evaluate(() => [...document.querySelectorAll('.lang-switch')].map((a) => a.dataset.lang).sort());
  assert.deepEqual(switches, [...languageCodes().filter((c) => c !== SOURCE), CODE].sort());
  assertNoIssues(page);
  await page.close();
  assert.equal(fs.existsSync(path.join(REPO, 'build', 'site', CODE)), false, 'the shipped site has no test edition');
  assert.ok(!fs.readFileSync(path.join(REPO, 'build', 'site', 'js', 'i18n', 'languages.mjs'), 'utf8').includes(CODE));
});
