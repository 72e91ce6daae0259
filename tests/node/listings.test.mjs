// The code listings of section 9 run, exactly as the page shows them
// (web/js/sections/s9-listings.mjs builds the text; nothing here retypes it):
//   - the NumPy listing with python3 + NumPy (Debian python3-numpy, build-scripts/setup);
//   - the JavaScript listing under Node, next to a copy of the built engine.
// What each prints is compared with the engine on the worked example (causal).
// The PyTorch listings cannot run here (no torch on this machine) and are not tested.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, copyFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEngine } from './engine-fixtures.mjs';
import { DEFAULT, computeExample } from '../../web/js/lesson/worked-example.mjs';
import { jsListing, numpyListing } from '../../web/js/sections/s9-listings.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SITE_JS = path.join(ROOT, 'build', 'site', 'js');

// Every number a program printed, in order (NumPy's "[[0.5    0.5   ]…" and Node's Float32Array dumps).
const numbersIn = (text) => (text.match(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi) || []).map(Number);

const close = (got, want, tol, what) => {
  assert.equal(got.length, want.length, `${what}: ${got.length} numbers printed, expected ${want.length}`);
  got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) <= tol, `${what}[${i}] printed ${g}, engine ${want[i]}`));
};

async function reference() {
  const engine = await loadEngine();
  return computeExample(engine, { ...DEFAULT, causal: true });
}

// Debian's python3 (with python3-numpy) even when another python3 comes first on PATH; PYTHON overrides.
const PYTHON = process.env.PYTHON || (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
function hasNumpy() {
  try { execFileSync(PYTHON, ['-c', 'import numpy'], { stdio: 'ignore' }); return true; } catch { return false; }
}

test('the NumPy listing, run as shown, prints the engine\'s weights and output', { skip: !hasNumpy() && 'python3-numpy is missing (build-scripts/setup installs it)' }, async () => {
  const ref = await reference();
  const code = numpyListing(ref);                      // the text s9 puts in its <pre>
  assert.match(code, /^import numpy as np$/m);
  const dir = mkdtempSync(path.join(tmpdir(), 'attn-numpy-'));
  try {
    const file = path.join(dir, 'attention.py');
    writeFileSync(file, code);
    const out = execFileSync(PYTHON, [file], { encoding: 'utf8' });
    const nums = numbersIn(out);
    // print(weights) then print(out): 16 + 8 numbers, 4 decimals
    close(nums.slice(0, 16), Array.from(ref.weights.data), 5e-5 + 1e-7, 'weights');
    close(nums.slice(16), Array.from(ref.out.data), 5e-5 + 1e-7, 'out');
    // the causal mask: nothing above the diagonal
    for (let i = 0; i < 4; i++) for (let j = i + 1; j < 4; j++) assert.equal(nums[i * 4 + j], 0);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('the NumPy listing holds the worked example\'s inputs, not computed values', async () => {
  const code = numpyListing(DEFAULT);
  assert.match(code, /^x = np\.array\(\[\[1, 0, 0\],$/m);
  assert.match(code, /^W_q = np\.array\(\[\[0, 1\],$/m);
  assert.match(code, /causal=True/);
});

test('the JavaScript listing, run under Node next to the engine, prints the engine\'s weights and output', async () => {
  const ref = await reference();
  const code = jsListing(ref.Q, ref.K, ref.V);          // the text s9 puts in its <pre>
  // the site's layout: the listing runs from a language folder (the console of /ar/ resolves
  // imports against /ar/), the engine is in js/ beside it
  assert.match(code, /await import\('\.\.\/js\/engine\.mjs'\)/);
  const dir = mkdtempSync(path.join(tmpdir(), 'attn-js-'));
  try {
    mkdirSync(path.join(dir, 'js'));
    mkdirSync(path.join(dir, 'ar'));
    for (const f of ['engine.mjs', 'attn.mjs', 'attn.wasm', 'attn-relaxed.wasm']) copyFileSync(path.join(SITE_JS, f), path.join(dir, 'js', f));
    const file = path.join(dir, 'ar', 'listing.mjs');
    writeFileSync(file, code);
    const out = execFileSync(process.execPath, [file], { encoding: 'utf8', cwd: path.join(dir, 'ar') });
    const [w, o] = out.split(/\n(?=Float32Array)/);
    // Float32Array(16) [ … ]: drop the "(16)" length before reading the values
    const vals = (s) => numbersIn(s.replace(/Float32Array\(\d+\)/, ''));
    close(vals(w), Array.from(ref.weights.data), 1e-6, 'weights');
    close(vals(o), Array.from(ref.out.data), 1e-6, 'out');
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
