// Every module of web/js parses. A page imports most of them lazily (a practice block, a
// section), so a syntax slip in one shows only as that part failing in the browser; here it
// fails in seconds, naming the file.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const WEB_JS = fileURLToPath(new URL('../../web/js/', import.meta.url));
const modules = readdirSync(WEB_JS, { recursive: true }).filter((f) => f.endsWith('.mjs')).map((f) => join(WEB_JS, f));

test('every web/js module parses', () => {
  assert.ok(modules.length > 50, `found ${modules.length} modules`);
  const broken = modules
    .map((f) => [f, spawnSync(process.execPath, ['--check', f], { encoding: 'utf8' })])
    .filter(([, r]) => r.status !== 0)
    .map(([f, r]) => `${f}: ${r.stderr.split('\n').find((l) => /Error/.test(l))}`);
  assert.deepEqual(broken, []);
});
