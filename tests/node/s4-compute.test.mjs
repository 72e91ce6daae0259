// Section 4's numbers without the page (web/js/sections/s4-compute.mjs), from the
// real engine: what the section claims about scaling must hold for the numbers it shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadEngine } from './engine-fixtures.mjs';
import { computeScaling, computeSeedTables, computeSweep, crossing, mean, ARTICLE } from '../../web/js/sections/s4-compute.mjs';

const engine = await loadEngine();
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const meanMaxW = async (scale, dk, n = 8) =>
  mean(await Promise.all(SEEDS.map(async (seed) => (await computeScaling(engine, { n, dk, seed, scale })).main.maxW)));

test('unscaled, the largest weight rises with d_k towards 1; scaled by 1/√d_k it stays near flat', async () => {
  const off = [await meanMaxW('off', 4), await meanMaxW('off', 64), await meanMaxW('off', 1024)];
  const on = [await meanMaxW('sqrt', 4), await meanMaxW('sqrt', 64), await meanMaxW('sqrt', 1024)];
  assert.ok(off[0] < off[1] && off[1] < off[2], `unscaled ${off}`);
  assert.ok(off[2] > 0.99, `unscaled at d_k = 1024: ${off[2]}`);
  assert.ok(Math.max(...on) - Math.min(...on) < 0.05, `scaled ${on}`);
  assert.ok(Math.max(...on) < 0.9, `scaled ${on}: no row collapses onto one key`);
});

test('entropy stays in [0, ln n] and its share in [0, 1], for every scale', async () => {
  for (const scale of ['off', 'sqrt', 'dk']) {
    for (const [n, dk] of [[2, 1], [8, 64], [33, 1024], [128, 3]]) {
      const r = await computeScaling(engine, { n, dk, seed: 5, scale });
      const where = `${scale} n=${n} dk=${dk}`;
      assert.ok(Math.abs(r.uniform - Math.log(n)) < 1e-12, where);
      for (const x of [r.main, r.byDk]) {
        assert.ok(x.meanH >= 0 && x.meanH <= r.uniform + 1e-6, `${where}: H = ${x.meanH}`);
        assert.ok(x.share >= 0 && x.share <= 1 + 1e-6, `${where}: share = ${x.share}`);
        assert.ok(x.maxW >= 1 / n - 1e-6 && x.maxW <= 1 + 1e-6, `${where}: max weight ${x.maxW}`);
      }
      assert.equal(r.main.weights.rows, n);
      assert.equal(r.main.weights.cols, n);
    }
  }
});

test('the same seed gives the same numbers; another seed gives others', async () => {
  const p = { n: 8, dk: 64, seed: 12345, scale: 'sqrt' };
  const a = await computeScaling(engine, p), b = await computeScaling(engine, p);
  assert.deepEqual([...a.main.weights.data], [...b.main.weights.data]);
  assert.deepEqual({ ...a, main: null }, { ...b, main: null });
  const c = await computeScaling(engine, { ...p, seed: 12346 });
  assert.notDeepEqual([...a.main.weights.data], [...c.main.weights.data]);
});

test('the logits RMS shown follows the scale: ÷√d_k, ÷d_k, or none', async () => {
  const dk = 256;
  const by = {};
  for (const scale of ['off', 'sqrt', 'dk']) by[scale] = await computeScaling(engine, { n: 16, dk, seed: 3, scale });
  const raw = by.off.rmsSeen;
  assert.ok(raw > 8, `unscaled RMS at d_k = 256 is about √256 = 16, got ${raw}`);
  assert.ok(Math.abs(by.sqrt.rmsSeen - raw / Math.sqrt(dk)) < 1e-4 * raw, `${by.sqrt.rmsSeen}`);
  assert.ok(Math.abs(by.dk.rmsSeen - raw / dk) < 1e-4 * raw, `${by.dk.rmsSeen}`);
  // the ±σ pair: unscaled one weight dwarfs the other, scaled the ratio is e^2 ≈ 7.4 or less
  assert.ok(by.off.ratioOff > 1e6, `${by.off.ratioOff}`);
  assert.ok(by.off.ratioOn > 1 && by.off.ratioOn < 10, `${by.off.ratioOn}`);
});

test('the tables use the stream the panel uses: one seed of experiment() = the panel at n = 8, d_k = 64', async () => {
  const seed = 9;
  const t = await computeSeedTables(engine, { seed });
  const panelOff = await computeScaling(engine, { n: ARTICLE.n, dk: ARTICLE.dk, seed, scale: 'off' });
  const panelOn = await computeScaling(engine, { n: ARTICLE.n, dk: ARTICLE.dk, seed, scale: 'sqrt' });
  assert.ok(Math.abs(t.off.mean.meanEntropy - panelOff.main.meanH) < 1e-5, `${t.off.mean.meanEntropy} vs ${panelOff.main.meanH}`);
  assert.ok(Math.abs(t.on.mean.meanEntropy - panelOn.main.meanH) < 1e-5, `${t.on.mean.meanEntropy} vs ${panelOn.main.meanH}`);
  assert.ok(Math.abs(t.many.single - t.off.mean.meanEntropy) < 1e-9, 'the first of many seeds is the single seed');
  assert.deepEqual(t.many.seeds.slice(0, 2), [seed, seed + 1]);
  assert.ok(t.many.min <= t.many.mean && t.many.mean <= t.many.max);
  assert.ok(t.many.sd > 0);
  // the trend table: unscaled entropy falls as d_k grows (16 → 64 → 256, five seeds)
  const hs = t.trend.map((r) => r.meanEntropy);
  assert.deepEqual(t.trend.map((r) => r.dk), [16, 64, 256]);
  assert.ok(hs[0] > hs[1] && hs[1] > hs[2], `${hs}`);
});

test('the sweep: the unscaled share crosses 50 % then 10 % as d_k grows; the scaled share stays high', async () => {
  const steps = [];
  const r = await computeSweep(engine, { n: 8, dks: [1, 4, 16, 64, 256, 1024], seeds: [1, 2, 3, 4] },
    { onStep: (done, total) => steps.push([done, total]) });
  assert.deepEqual(steps, Array.from({ length: 12 }, (_, i) => [i, 12]));
  assert.equal(r.cross50.kind, 'cross');
  assert.equal(r.cross10.kind, 'cross');
  assert.ok(r.cross50.a < r.cross50.x && r.cross50.x < r.cross50.b, JSON.stringify(r.cross50));
  assert.ok(r.cross50.x < r.cross10.x, 'the share falls to 50 % before it falls to 10 %');
  assert.ok(r.onMin > 0.5 && r.onMax <= 1, `${r.onMin}…${r.onMax}`);
  // the Jacobian: 0 for a one-hot row, largest (1/2) for two halves, the uniform row between
  assert.ok(Math.abs(r.J.oneJ) < 1e-6 && Math.abs(r.J.maxJ - 0.5) < 1e-6, JSON.stringify(r.J));
  assert.ok(r.J.uniJ > r.J.oneJ && r.J.uniJ < r.J.maxJ);
  assert.ok(r.off.at(-1).jac < r.on.at(-1).jac, 'unscaled, the gradient through softmax vanishes at d_k = 1024');
});

test('a stopped sweep returns null and asks the engine for nothing more', async () => {
  let calls = 0;
  const counting = {   // (the engine object is frozen: a wrapper, not a proxy)
    experiment: (a) => { calls++; return engine.experiment(a); },
    jacobianNorm: (p) => { calls++; return engine.jacobianNorm(p); },
  };
  let stop = false;
  const r = await computeSweep(counting, { n: 8, dks: [1, 2, 4, 8], seeds: [1] }, { onStep: (done) => { if (done === 3) stop = true; }, stopped: () => stop });
  assert.equal(r, null);
  assert.equal(calls, 4, 'the call announced at step 3 runs, then nothing');
});

test('crossing: interpolated in log d_k, or says the curve starts below / never crosses', () => {
  const pts = [{ x: 1, y: 0.9 }, { x: 4, y: 0.6 }, { x: 16, y: 0.4 }];
  const c = crossing(pts, 0.5);
  assert.equal(c.kind, 'cross');
  assert.ok(Math.abs(c.x - 8) < 1e-9, `halfway in log between 4 and 16 is 8, got ${c.x}`);
  assert.deepEqual(crossing(pts, 0.95), { kind: 'startBelow', a: 1 });
  assert.deepEqual(crossing(pts, 0.1), { kind: 'none', min: 0.4 });
  assert.equal(crossing([], 0.5), null);
});
