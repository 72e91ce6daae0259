// The two WebAssembly builds of the engine: attn.wasm (SIMD128: multiply, then
// add) and attn-relaxed.wasm (f32x4.relaxed_madd). loadEngine picks the relaxed
// one when WebAssembly.validate accepts relaxed SIMD, which Node 20 does only
// with --experimental-wasm-relaxed-simd: this process (no flag) must fall back
// to attn.wasm, and a child process with the flag must run attn-relaxed.wasm
// and agree with the reference kernel.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadEngine } from './engine-fixtures.mjs';

const ENGINE_URL = new URL('../../build/site/js/engine.mjs', import.meta.url);

test('without relaxed SIMD the engine falls back to attn.wasm', async () => {
  const { wasmBuild } = await import(ENGINE_URL);
  assert.equal(WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])), true);
  assert.equal(wasmBuild(), 'simd128');
  assert.equal((await loadEngine()).info().wasm, 'simd128');
});

test('both .wasm files ship next to engine.mjs', () => {
  for (const f of ['attn.wasm', 'attn-relaxed.wasm'])
    assert.ok(fs.statSync(fileURLToPath(new URL(f, ENGINE_URL))).size > 10000, f);
});

test('with relaxed SIMD the engine runs attn-relaxed.wasm and matches the reference', () => {
  // a child Node with the flag: loads the engine, runs chunked and materialized
  // attention (causal and not, lengths off the SIMD width) against the reference
  const script = `
    const { loadEngine, wasmBuild } = await import(${JSON.stringify(ENGINE_URL.href)});
    const e = await loadEngine();
    let worst = 0;
    for (const [L, S, d, causal] of [[67, 131, 64, false], [130, 130, 17, true], [1, 5, 3, false]]) {
      const m = (rows, cols, seed) => e.randomNormal({ seed, rows, cols });
      const q = m(L, d, 1), k = m(S, d, 2), v = m(S, d, 3);
      const ref = e.attention({ q, k, v, causal, variant: 'reference' }).out.data;
      for (const variant of ['chunked', 'materialized']) {
        const out = e.attention({ q, k, v, causal, variant }).out.data;
        for (let i = 0; i < out.length; i++) worst = Math.max(worst, Math.abs(out[i] - ref[i]));
      }
    }
    console.log(JSON.stringify({ build: wasmBuild(), wasm: e.info().wasm, worst }));`;
  const out = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', script],
    { encoding: 'utf8' });
  const r = JSON.parse(out.trim().split('\n').pop());
  assert.equal(r.build, 'relaxed');
  assert.equal(r.wasm, 'relaxed');
  assert.ok(r.worst < 1e-5, `max |relaxed − reference| = ${r.worst}`);
});
