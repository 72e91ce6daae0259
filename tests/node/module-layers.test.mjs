// The folders of web/js are layers (web/js/README.md): a module imports only from its own
// folder and the layers below it, so the engine link never depends on the page and a widget
// never reaches into a section. A new import that runs the wrong way fails here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const JS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/js');

// what each folder may import ('.' is web/js itself: dom.mjs, state.mjs and the built engine.mjs)
const MAY_IMPORT = {
  '.': ['.'],
  i18n: ['i18n'],
  'engine-link': ['engine-link', '.'],
  store: ['store', 'i18n', '.'],
  widgets: ['widgets', 'i18n', '.'],
  lesson: ['lesson', 'engine-link', 'i18n', '.'],
  practice: ['practice', 'lesson', 'widgets', 'store', 'engine-link', 'i18n', '.'],
  sections: ['sections', 'practice', 'lesson', 'widgets', 'store', 'engine-link', 'i18n', '.'],
  pages: ['pages', 'sections', 'practice', 'lesson', 'widgets', 'store', 'engine-link', 'i18n', '.'],
};

// every module, as web-modules-parse.test.mjs lists them
const modules = () => readdirSync(JS, { recursive: true }).filter((f) => f.endsWith('.mjs')).map((f) => path.join(JS, f));

// import specifiers in code, comments left out (a usage line in a header is not an import)
function imports(file) {
  const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const specs = [];
  for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\1/g)) specs.push(m[2]);
  for (const m of code.matchAll(/new\s+URL\(\s*(['"])([^'"]+\.mjs)\1\s*,\s*import\.meta\.url/g)) specs.push(m[2]);
  return specs;
}

const layerOf = (abs) => {
  const rel = path.relative(JS, abs);
  if (rel.startsWith('..')) return null;                 // outside web/js (vendor, text): not a layer
  return rel.includes(path.sep) ? rel.split(path.sep)[0] : '.';
};

test('every folder of web/js has a rule (a new folder says what it may import)', () => {
  const folders = new Set(modules().map(layerOf));
  for (const f of folders) assert.ok(f in MAY_IMPORT, `web/js/${f}/ has no entry in MAY_IMPORT`);
});

test('no import runs from a lower layer to a higher one', () => {
  const wrong = [];
  let seen = 0;
  for (const file of modules()) {
    const from = layerOf(file);
    for (const spec of imports(file)) {
      if (!spec.startsWith('.')) continue;
      seen++;
      const target = path.resolve(path.dirname(file), spec);
      // a path that names no module is code shown to the reader, not an import (s9's listing
      // imports ../js/engine.mjs from a language folder); engine.mjs is the build's copy
      if (!existsSync(target) && target !== path.join(JS, 'engine.mjs')) continue;
      const to = layerOf(target);
      if (to !== null && !MAY_IMPORT[from].includes(to)) wrong.push(`${path.relative(JS, file)} → ${spec} (${from} → ${to})`);
    }
  }
  assert.ok(seen > 200, `only ${seen} imports found: the reader of imports is broken`);
  assert.deepEqual(wrong, []);
});

test('the rule sees a wrong-way import (the one this layout removed)', () => {
  const from = 'practice', to = layerOf(path.join(JS, 'pages', 'lazy-mount.mjs'));
  assert.equal(to, 'pages');
  assert.equal(MAY_IMPORT[from].includes(to), false);
});
