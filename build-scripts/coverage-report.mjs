#!/usr/bin/env node
// What no test reaches in the site's JavaScript (issue 22 item 7): a report, not a gate.
// Reads V8 coverage files ({result: [{url, functions: [{functionName, ranges}]}]}) from the
// directories given: NODE_V8_COVERAGE's output of the Node tests and the browser tests' pages
// (tests/browser/helpers.mjs writes them when JS_COVERAGE_DIR is set). Merges them per file of
// web/js and engine/js (a line is reached when any run reached it) and prints, per file, the
// share of code lines reached, the functions no run called and the files no test loaded.
// Usage: node build-scripts/coverage-report.mjs <dir>... [--out build/coverage/js.txt]
import { readFileSync, readdirSync, existsSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? args.splice(outAt, 2)[1] : path.join(ROOT, 'build', 'coverage', 'js.txt');
const dirs = args.filter((d) => existsSync(d));

/** The repository file a script URL is, or null (tests, node_modules, vendor code). */
function repoFile(u) {
  let p;
  try { p = u.startsWith('file:') ? fileURLToPath(u) : new URL(u).pathname; } catch { return null; }
  const web = p.lastIndexOf('/web/js/');
  if (web >= 0) return `web/js/${p.slice(web + 8)}`;
  if (p.endsWith('/engine/js/engine.mjs') || p.endsWith('/engine-dist/engine.mjs') || p === '/js/engine.mjs') return 'engine/js/engine.mjs';
  const site = p.lastIndexOf('/js/');
  if (site >= 0 && existsSync(path.join(ROOT, 'web/js', p.slice(site + 4)))) return `web/js/${p.slice(site + 4)}`;
  return null;
}

// Per file: each UTF-16 offset's count in each run, painted outer range first so that the
// innermost range that holds an offset decides (V8's block coverage nests its ranges).
const lineHits = new Map();      // file → Uint8Array per line: 1 reached, 0 seen but never run
const uncalled = new Map();      // file → Map(name@line → true while no run called it)
const sources = new Map();

function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}
const lineOf = (starts, off) => {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (starts[mid] <= off) lo = mid; else hi = mid - 1; }
  return lo;
};

function addRun(file, functions) {
  if (!sources.has(file)) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    sources.set(file, { text, starts: lineStarts(text) });
  }
  const { text, starts } = sources.get(file);
  const count = new Float64Array(text.length).fill(-1);
  const ranges = functions.flatMap((f) => f.ranges);
  ranges.sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
  for (const r of ranges) count.fill(r.count, r.startOffset, Math.min(r.endOffset, text.length));
  const hits = lineHits.get(file) || new Uint8Array(starts.length).fill(255);   // 255: no code seen
  for (let l = 0; l < starts.length; l++) {
    const end = l + 1 < starts.length ? starts[l + 1] : text.length;
    for (let i = starts[l]; i < end; i++) {
      const c = text.charCodeAt(i);
      if (count[i] < 0 || c === 32 || c === 9 || c === 10 || c === 13) continue;
      if (count[i] > 0) { hits[l] = 1; break; }
      if (hits[l] === 255) hits[l] = 0;
    }
  }
  lineHits.set(file, hits);
  const calls = uncalled.get(file) || new Map();
  for (const f of functions) {
    if (!f.functionName) continue;   // the module itself, or an anonymous function
    const key = `${f.functionName}@${lineOf(starts, f.ranges[0].startOffset) + 1}`;
    calls.set(key, (calls.get(key) ?? true) && f.ranges[0].count === 0);
  }
  uncalled.set(file, calls);
}

for (const dir of dirs) {
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    let data;
    try { data = JSON.parse(readFileSync(path.join(dir, name), 'utf8')); } catch { continue; }
    for (const script of data.result || []) {
      const file = repoFile(script.url);
      if (file && existsSync(path.join(ROOT, file))) addRun(file, script.functions);
    }
  }
}

// Comment-only lines are not code: a line counts when V8 saw code on it and it is not `//…`.
const rows = [];
let reachedAll = 0, codeAll = 0;
for (const [file, hits] of lineHits) {
  const lines = sources.get(file).text.split('\n');
  let code = 0, reached = 0;
  hits.forEach((h, l) => {
    if (h === 255 || /^\s*(\/\/|\*|\/\*)/.test(lines[l] || '')) return;
    code++; if (h === 1) reached++;
  });
  reachedAll += reached; codeAll += code;
  const never = [...uncalled.get(file)].filter(([, u]) => u).map(([k]) => k);
  rows.push({ file, code, reached, never });
}
rows.sort((a, b) => (b.code - b.reached) - (a.code - a.reached));

const allFiles = [];
const walk = (d) => { for (const e of readdirSync(path.join(ROOT, d), { withFileTypes: true })) {
  const rel = `${d}/${e.name}`;
  if (e.isDirectory()) walk(rel); else if (/\.mjs$/.test(e.name)) allFiles.push(rel);
} };
walk('web/js');
const unloaded = allFiles.filter((f) => !lineHits.has(f));

const lines = [];
lines.push(`JS coverage from ${dirs.join(', ') || '(no coverage directory found)'}: ${reachedAll} of ${codeAll} code lines reached ` +
  `(${codeAll ? ((100 * reachedAll) / codeAll).toFixed(1) : 0} %) in ${rows.length} files.`);
lines.push('Main-thread code only in the browser (workers are not covered there; the Node tests run the worker modules).');
lines.push('', 'file                                              reached   lines not reached   functions never called');
for (const r of rows) {
  const pct = r.code ? ((100 * r.reached) / r.code).toFixed(0) : '100';
  const never = r.never.length ? `${r.never.slice(0, 6).join(', ')}${r.never.length > 6 ? `, … ${r.never.length - 6} more` : ''}` : '';
  lines.push(`${r.file.padEnd(50)}${`${pct} %`.padStart(7)}${String(r.code - r.reached).padStart(20)}   ${never}`);
}
lines.push('', `Modules of web/js that no test loaded: ${unloaded.length ? unloaded.join(', ') : 'none'}`);
const text = lines.join('\n');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, text + '\n');
console.log(text);
console.log(`\n(written to ${path.relative(ROOT, out)})`);
