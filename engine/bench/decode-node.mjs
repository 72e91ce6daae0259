// Decode step in WebAssembly under Node (build/site/js/engine.mjs, the build
// Node picks) next to a WebAssembly memory.copy ceiling measured in the same
// run (memcopy.mjs: a hand-assembled module, bulk-memory memory.copy of 256 MiB). Times are
// process CPU time (process.cpuUsage; the machine may be shared), best of runs,
// and include the engine.mjs argument checks and copies in and out.
// Usage: node engine/bench/decode-node.mjs (after build-scripts/build).
import { loadEngine } from '../../build/site/js/engine.mjs';
import { memcopyCeiling } from './memcopy.mjs';
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const best = (f, min = 1.5) => { let b = Infinity, tot = 0, r = 0; while (r < 3 || tot < min) { const c = process.cpuUsage(); f(); const u = process.cpuUsage(c); const s = (u.user + u.system) / 1000; b = Math.min(b, s); tot += s / 1000; r++; } return b; };
const copy = await memcopyCeiling({ clock: cpuMs, minMs: 1500 });
const ceiling = copy.bytesPerSecond;
console.log(`wasm memory.copy ceiling: ${(ceiling / 1e9).toFixed(2)} GB/s (256 MiB, best ${copy.bestMs.toFixed(1)} ms)`);
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
