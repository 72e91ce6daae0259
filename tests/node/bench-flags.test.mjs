// The bench's flags have one spelling: every `--…real-models…` flag that build-scripts/bench
// takes, or that README.md and engine/bench/README.md tell a reader to type, is one that
// engine/bench/bench.mjs accepts; a flag it does not know is refused with its usage (exit 2),
// by both scripts, instead of being ignored. (Nothing is measured here: --help stops
// bench.mjs right after its flags are read; build-scripts/bench refuses before any build.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const benchMjs = (...flags) => spawnSync(process.execPath, ['engine/bench/bench.mjs', ...flags], { cwd: ROOT, encoding: 'utf8' });
const read = (f) => readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');
const realModelFlags = (text) => [...new Set(text.match(/--[a-z-]*real-models[a-z-]*/g) ?? [])];

test('every real-models flag that build-scripts/bench and the READMEs name is accepted by bench.mjs', () => {
  const named = {};
  for (const f of ['build-scripts/bench', 'README.md', 'engine/bench/README.md', 'engine/bench/bench.mjs']) {
    for (const flag of realModelFlags(read(f))) (named[flag] ??= []).push(f);
  }
  assert.deepEqual(Object.keys(named).sort(), ['--real-models', '--real-models-only']);
  for (const [flag, files] of Object.entries(named)) {
    const r = benchMjs(flag, '--help');
    assert.equal(r.status, 0, `bench.mjs refuses ${flag} (named in ${files.join(', ')}): ${r.stderr}`);
    assert.match(r.stdout, /^usage: node engine\/bench\/bench\.mjs/);
  }
});

test('build-scripts/bench passes its real-models flags to bench.mjs as spelt', () => {
  const script = read('build-scripts/bench');
  const forwarded = [...script.matchAll(/^\s*(--[a-z-]*real-models[a-z-]*)\) realModels=\(("\$1"|[^)]*)\)/gm)]
    .map(([, label, value]) => [label, value === '"$1"' ? label : value]);
  assert.deepEqual(forwarded.map(([label]) => label), ['--real-models', '--real-models-only']);
  for (const [label, passed] of forwarded) {
    const r = benchMjs(passed, '--help');
    assert.equal(r.status, 0, `build-scripts/bench ${label} passes ${passed}, which bench.mjs refuses: ${r.stderr}`);
  }
});

test('an unknown flag is refused with the usage, by bench.mjs and by build-scripts/bench', () => {
  for (const flag of ['--only-real-models', '--no-such-flag']) {
    const r = benchMjs(flag);
    assert.equal(r.status, 2, `bench.mjs ${flag}: exit ${r.status}`);
    assert.match(r.stderr, new RegExp(`bench\\.mjs: .*${flag}[^]*\\nusage: node engine/bench/bench\\.mjs`));
    const s = spawnSync('bash', ['build-scripts/bench', flag], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(s.status, 2, `build-scripts/bench ${flag}: exit ${s.status}`);
    assert.match(s.stderr, /^usage: build-scripts\/bench .*\[--real-models \| --real-models-only\]/);
  }
});
