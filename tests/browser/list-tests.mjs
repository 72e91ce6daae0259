#!/usr/bin/env node
// Lists every browser test run without starting a browser: `node tests/browser/list-tests.mjs`
// prints the runs per file and the total; `--names` prints each run's name too. Each
// *.test.mjs is imported with node:test replaced by a stand-in that records test() calls,
// runs describe() bodies and no hook, so the loops over editions and widths count as the
// runner sees them. (Used for the inventory in tests/browser/README.md.)
import { register } from 'node:module';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const STAND_IN = `
const runs = (globalThis.__browserTestRuns ??= []);
export function test(name) { runs.push([globalThis.__browserTestFile, String(name)]); }
export function describe(name, opts, fn) { (typeof opts === 'function' ? opts : fn)?.(); }
export function before() {} export function after() {} export function beforeEach() {} export function afterEach() {}
Object.assign(test, { test, it: test, describe, suite: describe, before, after, beforeEach, afterEach });
export { test as it, describe as suite };
export default test;`;
const HOOKS = `export async function resolve(spec, ctx, next) {
  if (spec === 'node:test') return { url: ${JSON.stringify(`data:text/javascript,${encodeURIComponent(STAND_IN)}`)}, shortCircuit: true };
  return next(spec, ctx);
}`;
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);

const HERE = path.dirname(fileURLToPath(import.meta.url));
process.env.BASE_URL ??= 'http://127.0.0.1:1';   // helpers read it at import; nothing is fetched
const files = readdirSync(HERE).filter((f) => f.endsWith('.test.mjs')).sort();
for (const f of files) {
  globalThis.__browserTestFile = f;
  await import(pathToFileURL(path.join(HERE, f)).href);
}
const runs = globalThis.__browserTestRuns ?? [];
const showNames = process.argv.includes('--names');
for (const f of files) {
  const mine = runs.filter(([file]) => file === f);
  console.log(`${String(mine.length).padStart(3)}  ${f}`);
  if (showNames) for (const [, name] of mine) console.log(`       ${name}`);
}
console.log(`${String(runs.length).padStart(3)}  runs in ${files.length} files`);
