// The seeded PRNG: mulberry32, reproducible, well spread over small ranges.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRng, toSeed, freshSeed } from '../../web/js/practice/random.mjs';

// Independent transcription of the published mulberry32 (a fresh closure per seed).
function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('matches the reference mulberry32 stream', () => {
  for (const seed of [0, 1, 42, 0xdeadbeef, 2 ** 32 - 1]) {
    const ref = mulberry32(seed | 0);
    const rng = createRng(seed);
    for (let i = 0; i < 100; i++) assert.equal(rng.next(), ref(), `seed ${seed} draw ${i}`);
  }
});

test('same seed → same sequence; different seeds → different sequences', () => {
  const a = createRng(123);
  const b = createRng(123);
  const c = createRng(124);
  const sa = Array.from({ length: 20 }, () => a.nextU32());
  const sb = Array.from({ length: 20 }, () => b.nextU32());
  const sc = Array.from({ length: 20 }, () => c.nextU32());
  assert.deepEqual(sa, sb);
  assert.notDeepEqual(sa, sc);
});

test('int(lo, hi) stays in range, hits every value, and refuses bad ranges', () => {
  const rng = createRng(7);
  const counts = new Map();
  for (let i = 0; i < 6000; i++) {
    const x = rng.int(-2, 3);
    assert.ok(Number.isInteger(x) && x >= -2 && x <= 3, `out of range: ${x}`);
    counts.set(x, (counts.get(x) ?? 0) + 1);
  }
  assert.equal(counts.size, 6);
  for (const [x, n] of counts) assert.ok(n > 800 && n < 1200, `value ${x} drawn ${n} times of 6000`);
  assert.equal(rng.int(5, 5), 5);
  assert.throws(() => rng.int(3, 2), /bad range/);
  assert.throws(() => rng.int(0.5, 2), /bad range/);
});

test('pick and shuffle are deterministic and shuffle is a permutation', () => {
  const s1 = createRng(9).shuffle([1, 2, 3, 4, 5, 6, 7, 8]);
  const s2 = createRng(9).shuffle([1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(s1, s2);
  assert.deepEqual([...s1].sort(), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.notDeepEqual(s1, [1, 2, 3, 4, 5, 6, 7, 8]);
  const picks = new Set(Array.from({ length: 50 }, ((r) => () => r.pick(['a', 'b', 'c']))(createRng(3))));
  assert.deepEqual([...picks].sort(), ['a', 'b', 'c']);
});

test('toSeed normalises any number to uint32; freshSeed is a uint32', () => {
  assert.equal(toSeed(-1), 2 ** 32 - 1);
  assert.equal(toSeed(3.9), 3);
  assert.equal(toSeed('12'), 12);
  assert.equal(toSeed(NaN), 0);
  assert.equal(toSeed(2 ** 32 + 5), 5);
  const f = freshSeed();
  assert.ok(Number.isInteger(f) && f >= 0 && f < 2 ** 32);
});
