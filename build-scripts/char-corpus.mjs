// Builds the character-model corpus of one language from the lesson's own
// prose (web/text/<lang>/*.json; ours, so licence-clean). Each string value
// (keys starting with "_" are translator notes and are skipped, as are refs.json
// citations) becomes one line after stripping markup: TeX ($…$, $$…$$), `code`,
// **bold**, [links](url), HTML tags, {placeholders} and [placeholders], URLs,
// and then every character outside the Arabic-script letters, the half-space
// (ZWNJ), the language's digits, spaces and a few punctuation marks. Lines of
// fewer than 20 characters are dropped. Files are read in name order, keys in
// file order, so the output is byte-identical run after run.
// Usage: node build-scripts/char-corpus.mjs fa > corpus.txt
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const lang = process.argv[2];
if (lang !== 'fa' && lang !== 'ar') {
  console.error('usage: char-corpus.mjs fa|ar');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'web', 'text', lang);
const files = readdirSync(root).filter((f) => f.endsWith('.json') && f !== 'refs.json').sort();

function strings(value, key, out) {
  if (key.startsWith('_')) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, '', out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, k, out);
}

// Arabic block letters and marks (through U+0655: the Persian ezafe «ـٔ» of «همهٔ» is U+0654), ZWNJ, Persian and Arabic digits, space, punctuation.
const keep = /[\u0621-\u064A\u064B-\u0655\u0660-\u0669\u066B\u066C\u0670-\u06D3\u06F0-\u06F9\u200C ،؛؟.!:«»()\-]/u;

function clean(text) {
  let s = text
    .replace(/\$\$[\s\S]*?\$\$/g, ' ')
    .replace(/\$[^$]*\$/g, ' ')
    .replace(/\\\([\s\S]*?\\\)/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, ' ')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\*\*|__/g, '');
  s = Array.from(s, (ch) => (keep.test(ch) ? ch : ' ')).join('');
  // empty brackets and stray punctuation left by removed code or formulas
  s = s.replace(/\(\s*[،؛:.\-]*\s*\)/g, ' ').replace(/\s+/g, ' ').replace(/ ([،؛؟.!:])/g, '$1').trim();
  return s;
}

const lines = [];
for (const f of files) {
  const out = [];
  strings(JSON.parse(readFileSync(join(root, f), 'utf8')), '', out);
  for (const t of out) {
    const c = clean(t);
    if ([...c].length >= 20) lines.push(c);
  }
}
process.stdout.write(lines.join('\n') + '\n');
