// A WebAssembly memory-copy ceiling: a hand-assembled module (no toolchain
// needed) whose one function runs bulk-memory `memory.copy` over its own
// 512 MiB memory. Used by decode-node.mjs (Node) and bench-worker.mjs
// (Chromium, the decode rows of issue 15), so both compare a decode step's
// K/V bytes per second with the bytes per second one core copies inside wasm
// memory, in the same run.
//   const c = await memcopyCeiling({ clock, minMs });   // clock() → ms (CPU time in Node, performance.now() in a worker)
//   //   → { bytesPerSecond, bytes, bestMs, runs }: bytes copied per second (each byte read once and written once)
const leb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
const sec = (id, body) => [id, ...leb(body.length), ...body];
const name = (s) => [s.length, ...new TextEncoder().encode(s)];
export const MEMCOPY_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0,
  ...sec(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 0]),            // type: (i32 dst, i32 src, i32 n) -> ()
  ...sec(3, [1, 0]),
  ...sec(5, [1, 0, ...leb(8192)]),                          // memory: 8192 pages = 512 MiB
  ...sec(7, [2, ...name('copy'), 0, 0, ...name('mem'), 2, 0]),
  ...sec(10, [1, ...leb(12), 0, 0x20, 0, 0x20, 1, 0x20, 2, 0xfc, 0x0a, 0, 0, 0x0b])]);   // memory.copy

export async function memcopyCeiling({ clock, minMs = 1500, minRuns = 3, bytes = 256 * 1024 * 1024 } = {}) {
  const { instance } = await WebAssembly.instantiate(MEMCOPY_MODULE);
  new Uint8Array(instance.exports.mem.buffer).fill(1);   // touch every page before timing
  let bestMs = Infinity, total = 0, runs = 0;
  while (runs < minRuns || total < minMs) {
    const t0 = clock();
    instance.exports.copy(bytes, 0, bytes);
    const ms = clock() - t0;
    bestMs = Math.min(bestMs, ms);
    total += ms;
    runs++;
  }
  return { bytesPerSecond: bytes / (bestMs / 1000), bytes, bestMs, runs };
}
