// Decode step in WebAssembly under Node (build/site/js/engine.mjs, the build
// Node picks) next to a WebAssembly memory.copy ceiling measured in the same
// run (a hand-assembled module: bulk-memory memory.copy of 256 MiB). Times are
// process CPU time (process.cpuUsage; the machine may be shared), best of runs,
// and include the engine.mjs argument checks and copies in and out.
// Usage: node engine/bench/decode-node.mjs (after build-scripts/build).
import { loadEngine } from '../../build/site/js/engine.mjs';
const leb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
const sec = (id, body) => [id, ...leb(body.length), ...body];
const name = (s) => [s.length, ...Buffer.from(s)];
const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0,
  ...sec(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 0]),
  ...sec(3, [1, 0]),
  ...sec(5, [1, 0, ...leb(8192)]),
  ...sec(7, [2, ...name('copy'), 0, 0, ...name('mem'), 2, 0]),
  ...sec(10, [1, ...leb(12), 0, 0x20, 0, 0x20, 1, 0x20, 2, 0xfc, 0x0a, 0, 0, 0x0b])]);
const { instance } = await WebAssembly.instantiate(bytes);
const N = 256 * 1024 * 1024;
new Uint8Array(instance.exports.mem.buffer).fill(1);
const best = (f, min = 1.5) => { let b = Infinity, tot = 0, r = 0; while (r < 3 || tot < min) { const c = process.cpuUsage(); f(); const u = process.cpuUsage(c); const s = (u.user + u.system) / 1000; b = Math.min(b, s); tot += s / 1000; r++; } return b; };
const copyMs = best(() => instance.exports.copy(N, 0, N));
const ceiling = N / (copyMs / 1000);
console.log(`wasm memory.copy ceiling: ${(ceiling / 1e9).toFixed(2)} GB/s (256 MiB, best ${copyMs.toFixed(1)} ms)`);
const engine = await loadEngine();
console.log(engine.info());
const S = 32768, d = 128, hq = 32;
for (const hkv of [8, 32]) {
  const cache = engine.kvCache({ headsKv: hkv, dk: d, dv: d, window: S });
  const piece = 2048;
  for (let done = 0; done < S; done += piece) {
    const k = engine.randomNormal({ seed: done + 1, rows: hkv * piece, cols: d });
    cache.prefill({ k, v: k });
  }
  const q = engine.randomNormal({ seed: 7, rows: hq, cols: d });
  const k1 = engine.randomNormal({ seed: 8, rows: hkv, cols: d });
  const ms = best(() => cache.decode({ q, k: k1, v: k1 }), 2);
  const bytesRead = engine.kvBytesRead({ headsQ: hq, headsKv: hkv, S, dk: d, dv: d });
  const bps = bytesRead / (ms / 1000);
  console.log(`${hq}/${hkv}: ${bytesRead} K/V bytes, ${ms.toFixed(2)} ms/step (process CPU time, incl. copies in/out), ${(bps / 1e9).toFixed(2)} GB/s, ${(100 * bps / ceiling).toFixed(1)}% of memory.copy; heap ${engine.info().heapBytes}`);
  cache.delete();
}
