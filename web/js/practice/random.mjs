// A tiny seeded PRNG for choosing question parameters: the same seed gives
// the same question on every device, so a seed in the URL or the store
// reproduces a question exactly.
//
// Algorithm: mulberry32 (Tommy Ettinger's 32-bit generator): a Weyl sequence
// state += 0x6D2B79F5, then an xorshift-multiply mix of the state. Period 2^32,
// good enough for picking small integers; NOT for statistics (the engine's
// randomNormal is for that). All arithmetic is 32-bit (Math.imul, >>> 0), so
// the stream is identical in every JS engine.

/** Normalize any number to a uint32 seed (negative and fractional seeds allowed). */
export function toSeed(x) {
  const n = Number(x);
  return Number.isFinite(n) ? Math.trunc(n) >>> 0 : 0;
}

export function createRng(seed) {
  let state = toSeed(seed);

  /** Next uint32. */
  function nextU32() {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  const next = () => nextU32() / 2 ** 32;

  /** Uniform integer in [lo, hi], both inclusive. */
  function int(lo, hi) {
    if (!Number.isInteger(lo) || !Number.isInteger(hi) || hi < lo) throw new Error(`rng.int: bad range ${lo}..${hi}`);
    return lo + Math.floor(next() * (hi - lo + 1));
  }

  /** One element of a non-empty array. */
  const pick = (arr) => arr[int(0, arr.length - 1)];

  /** A shuffled copy (Fisher–Yates). */
  function shuffle(arr) {
    const a = [...arr];
    for (let i = a.length - 1; i > 0; i--) {
      const j = int(0, i);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }

  return { nextU32, next, int, pick, shuffle };
}

/** A fresh random seed for a new question (not reproducible; used only to start). */
export function freshSeed() {
  const c = globalThis.crypto;
  if (c?.getRandomValues) return c.getRandomValues(new Uint32Array(1))[0];
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}
