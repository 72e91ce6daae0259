// Every module of web/js parses. A page imports most of them lazily (a practice block, a
// section), so a syntax slip in one shows only as that part failing in the browser; here it
// fails in well under a second, naming the file and line. The parser is esbuild's, the one
// make-site writes the site's modules with (build-scripts/compact-js.mjs); one `node --check`
// per module took 16 s of the Node suite.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compactModule } from '../../build-scripts/compact-js.mjs';

const WEB_JS = fileURLToPath(new URL('../../web/js/', import.meta.url));
const modules = readdirSync(WEB_JS, { recursive: true }).filter((f) => f.endsWith('.mjs')).map((f) => join(WEB_JS, f));

test('every web/js module parses', () => {
  assert.ok(modules.length > 50, `found ${modules.length} modules`);
  const broken = [];
  for (const f of modules) {
    try { compactModule(readFileSync(f, 'utf8'), f); } catch (e) {
      const first = e.errors?.[0];
      broken.push(first ? `${f}:${first.location?.line}: ${first.text}` : `${f}: ${e.message.split('\n')[0]}`);
    }
  }
  assert.deepEqual(broken, []);
});
