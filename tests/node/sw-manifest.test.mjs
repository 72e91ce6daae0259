// The service worker's precache list leaves out models/ (the trained models load when the
// reader nears their chapter, not on a first visit), while its version still covers them,
// so a retrained model makes browsers install a new worker that drops the old copy.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeServiceWorker, MODELS_DIR } from '../../build-scripts/sw-manifest.mjs';

function site(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-site-'));
  for (const [rel, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), body);
  }
  return dir;
}

test('models/ is not precached, every other file is', () => {
  const dir = site({ 'index.html': 'x', 'js/a.mjs': 'a', [`${MODELS_DIR}fa.ckpt`]: 'w', [`${MODELS_DIR}fa.corpus.txt`]: 't' });
  const { files } = writeServiceWorker(dir);
  assert.deepEqual(files, ['index.html', 'js/a.mjs']);
  const written = fs.readFileSync(path.join(dir, 'sw.js'), 'utf8');
  assert.ok(!written.includes('fa.ckpt'), 'the written MANIFEST names no model file');
});

test('a changed model changes the version', () => {
  const base = { 'index.html': 'x', [`${MODELS_DIR}fa.ckpt`]: 'weights 1' };
  const v1 = writeServiceWorker(site(base)).version;
  const v2 = writeServiceWorker(site({ ...base, [`${MODELS_DIR}fa.ckpt`]: 'weights 2' })).version;
  assert.notEqual(v1, v2);
});

// The registration resolves sw.js against its own URL: a move of sw-register.mjs to another
// folder must move that relative root with it, or the page registers a 404 and is never offline.
test('sw-register.mjs registers the sw.js of the site root (web/sw.js)', async () => {
  const { SITE_ROOT } = await import('../../web/js/pages/sw-register.mjs');
  const sw = new URL('sw.js', SITE_ROOT);
  assert.equal(path.resolve(sw.pathname), path.resolve(new URL('../../web/sw.js', import.meta.url).pathname));
  assert.ok(fs.existsSync(sw), 'web/sw.js exists');
});
