// The spoken labels of formulas (web/js/i18n/tex-speech.mjs): every formula of every text file,
// and the ones the sections write in code, becomes plain text with no TeX left in it, since a
// screen reader reads the aria-label of a role="math" span aloud ("≤ft(fracQK^ᵀ…" before).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { texToText } from '../../web/js/i18n/tex-speech.mjs';
import { parseMarkup } from '../../web/js/i18n/markup.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Every $…$ of every string of web/text/<lang>/*.json, found by the page's own parser.
function formulasOfTexts() {
  const out = new Map();   // tex → first place it was seen
  const walk = (nodes, where) => {
    for (const n of nodes) {
      if (n.type === 'math' && !out.has(n.s)) out.set(n.s, where);
      if (n.parts) walk(n.parts, where);
    }
  };
  const textRoot = path.join(ROOT, 'web/text');
  for (const lang of fs.readdirSync(textRoot)) {
    for (const file of fs.readdirSync(path.join(textRoot, lang)).filter((f) => f.endsWith('.json'))) {
      const dict = JSON.parse(fs.readFileSync(path.join(textRoot, lang, file), 'utf8'));
      for (const [key, value] of Object.entries(dict)) {
        if (typeof value === 'string') walk(parseMarkup(value), `${lang}/${file} ${key}`);
      }
    }
  }
  return out;
}

// The formulas the sections pass to renderMath themselves (string literals in web/js).
function formulasOfCode() {
  const out = new Map();
  const dir = path.join(ROOT, 'web/js');
  const files = fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.mjs'));
  for (const f of files) {
    const src = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of src.matchAll(/renderMath\(\s*'((?:[^'\\]|\\.)*)'/g)) {
      out.set(m[1].replace(/\\\\/g, '\\'), `web/js/${f}`);
    }
  }
  return out;
}

// What TeX leaves behind when a label is made badly: backslashes, braces, ^ and _, command
// names spelled out, and the "≤ft(" that \left became when \le was replaced first.
const RESIDUE = /[\\{}^_]|\b(frac|left|right|[lr]?Vert|[lc]?dots|approx|operatorname|mathrm|text|sqrt|cdot|times|infty|Delta|ell|top|sum)\b|≤ft|≥t|ight\b/;

test('every formula of the text files and of the sections reads without TeX', () => {
  const all = new Map([...formulasOfTexts(), ...formulasOfCode()]);
  assert.ok(all.size > 150, `only ${all.size} formulas found`);
  const bad = [];
  for (const [tex, where] of all) {
    const spoken = texToText(tex);
    if (RESIDUE.test(spoken) || !spoken.trim()) bad.push(`${where}: ${tex}  →  ${spoken}`);
  }
  assert.deepEqual(bad, []);
});

test('formulas the reviews named read as written', () => {
  const cases = [
    ['\\operatorname{Attention}(Q,K,V)=\\operatorname{softmax}\\!\\left(\\frac{QK^{\\top}}{\\sqrt{d_k}}\\right)V',
      'Attention(Q,K,V) = softmax(QKᵀ/√dₖ)V'],
    ['\\lVert J\\rVert_F', '‖J‖ F'],
    ['\\lVert \\Delta \\rVert / \\lVert O \\rVert', '‖Δ‖/‖O‖'],
    ['1 + 2 + \\dots + T \\approx T^2/2', '1 + 2 + … + T ≈ T²/2'],
    ['d_{\\text{model}}', 'd model'],
    ['H_{kv}', 'Hₖᵥ'],
    ['W_Q', 'W Q'],
    // nested braces inside \frac, and \frac without braces
    ['\\frac{e^{s_j}}{\\sum_k e^{s_k}}', 'exp(sⱼ)/(∑ₖ exp(sₖ))'],
    ['-\\sum \\frac1m\\ln\\frac1m=\\ln m', '−∑ 1/m ln 1/m = ln m'],
    ['e^{m_{\\text{old}}-m_{\\text{new}}}', 'exp(m old − m new)'],
    ['m=-\\infty', 'm = −∞'],
    ['j\\le i', 'j ≤ i'],
  ];
  for (const [tex, want] of cases) assert.equal(texToText(tex), want, tex);
});
