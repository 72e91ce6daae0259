#!/usr/bin/env node
// Assembles build/site/ from web/ (see web/README.md for the layout):
//   web/index.html          → index.html (the bilingual language chooser: a template whose
//                             prose comes from both text files through {{t.fa:key}} / {{t.ar:key}})
//   web/js/**, web/css/**, web/img/** (if any)  → copied
//   web/pages/lesson.html   → fa/index.html, ar/index.html
//   web/pages/practice.html → fa/practice.html, ar/practice.html (skipped if absent)
//   web/text/<lang>/*.json  → text/<lang>.json (merged, "_…" notes dropped; terms.json is
//                             the terminology the check enforces, not page text)
//   node_modules            → vendor/katex (katex.min.js as an ES module, the fonts formulas use),
//                             vendor/fonts, vendor/ts-fsrs (web/README.md, "Load budget")
//   build/engine-dist/*     → js/ (when present)
//   web/sw.js               → sw.js (the service worker, written last by sw-manifest.mjs: its
//                             MANIFEST lists every other file of the site, its VERSION hashes
//                             all of them; see web/README.md, "Offline")
// Template placeholders: {{head}} (web/pages/_head.html) {{lessonToc}} {{lessonSections}}
// (the lesson's contents <li>s and <section> slots, from web/js/lesson/lesson-sections.mjs) {{lang}} {{dir}} {{title}} {{font}} {{titles}} {{descriptions}} {{csp}}
// {{t:key}} (a prose key as element content, `code` as <bdi dir="ltr">),
// {{a:key}} (a prose key as plain escaped text, for attributes); {{t.ar:key}} / {{a.fa:key}}
// take the key from that language's text instead of the page's (the bilingual chooser).
// Every page loads its script through js/pages/boot.mjs after the first paint, with a
// <link rel="modulepreload"> per module the script imports statically (added then).
// Exits 1 with a list of problems when a text or page check fails
// (build-scripts/text-checks.mjs); the site is still written so it can be inspected.
//
// Repeated blocks: {{#languages}}…{{/languages}} and {{#otherLanguages}}…{{/otherLanguages}}
// (every edition of web/js/i18n/languages.mjs, or every edition but the page's) hold {{l.code}},
// {{l.dir}}, {{l.autonym}}, {{l.font}} and {{t.@:key}} / {{a.@:key}} (that edition's text).
//
// usage: node build-scripts/make-site.mjs [--out DIR] [--check-only] [--text-dir DIR]
//        [--extra-languages FILE.mjs]   (test-only editions; see tests/browser/third-language.test.mjs)

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pathToFileURL } from 'node:url';
import { TERMS_FILE, checkTexts, checkTerms, checkPageHtml, loadTextDir } from './text-checks.mjs';
import { LANGUAGES, language, languageCodes, otherLanguages } from '../web/js/i18n/languages.mjs';
import { writeServiceWorker, SW_SOURCE } from './sw-manifest.mjs';
import { CSP } from './site-policy.mjs';
import { SECTIONS, SECTION_NUMBERS } from '../web/js/lesson/lesson-sections.mjs';
import { parseMarkup, markupPlain } from '../web/js/i18n/markup.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'web');
const NM = path.join(ROOT, 'node_modules');
const args = process.argv.slice(2);
const outArg = args.indexOf('--out');
const OUT = outArg >= 0 ? path.resolve(args[outArg + 1]) : path.join(ROOT, 'build', 'site');
const CHECK_ONLY = args.includes('--check-only');
const argValue = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : null; };
const TEXT_DIR = argValue('--text-dir') ? path.resolve(argValue('--text-dir')) : path.join(WEB, 'text');
// Test-only editions (tests/browser/third-language.test.mjs): a module exporting LANGUAGES
// entries, added to the registry for this build and appended to the copied languages.mjs.
// They have no trained model: their chapters 13–14 read the default edition's (modelFrom).
const EXTRA_LANGUAGES = (argValue('--extra-languages')
  ? (await import(pathToFileURL(path.resolve(argValue('--extra-languages'))).href)).LANGUAGES : [])
  .map((l) => ({ modelFrom: LANGUAGES[0].code, ...l }));
LANGUAGES.push(...EXTRA_LANGUAGES);
const LANGS = languageCodes();
const ENGINE_DIST = path.join(ROOT, 'build', 'engine-dist');

const errors = [];
const notes = [];

function copyDir(src, dst, filter = () => true) {
  if (!fs.existsSync(src)) return 0;
  let n = 0;
  fs.mkdirSync(dst, { recursive: true });
  for (const ent of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, ent.name), d = path.join(dst, ent.name);
    if (ent.isDirectory()) n += copyDir(s, d, filter);
    else if (filter(ent.name, s)) { fs.copyFileSync(s, d); n++; }
  }
  return n;
}
function copyFile(src, dst) {
  if (!fs.existsSync(src)) { errors.push(`missing file: ${path.relative(ROOT, src)}`); return; }
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  fs.copyFileSync(src, dst);
}
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// Plain HTML for a prose string in a static template (web/js/i18n/markup.mjs reads the markup, as the
// page does): `x` → <bdi dir="ltr">, **x** and $x$ → their text, the rest escaped.
function staticText(s) {
  const html = (nodes) => nodes.map((n) => (n.type === 'code' ? `<bdi dir="ltr">${esc(markupPlain(n.parts))}</bdi>`
    : n.type === 'strong' ? html(n.parts) : esc(markupPlain([n])))).join('');
  return html(parseMarkup(s));
}

const plainText = (s) => markupPlain(String(s));

// The <head> lines every lesson/practice page shares (web/pages/_head.html), written
// where a template says {{head}}, then filled like the rest of the template.
const HEAD_PARTIAL = path.join(ROOT, 'web', 'pages', '_head.html');

// The lesson's contents list and section slots, from the one list of sections
// (web/js/lesson/lesson-sections.mjs), as template markup filled like the rest of the page.
const LESSON_PARTS = {
  // numbered chapters carry their number (li value); the way in and out carry none (class)
  lessonToc: SECTIONS.map((s) => (SECTION_NUMBERS[s.id]
    ? `      <li value="${SECTION_NUMBERS[s.id]}">` : '      <li class="toc-unnumbered">') +
    `<a href="#${s.id}">{{t:${s.title}}}</a></li>`).join('\n'),
  lessonSections: SECTIONS.map((s) => `  <section id="${s.id}" data-testid="${s.id}"` +
    (SECTION_NUMBERS[s.id] ? ` data-number="${SECTION_NUMBERS[s.id]}"` : '') + ` aria-labelledby="${s.id}-h">` +
    `<h2 id="${s.id}-h">{{t:${s.title}}}</h2><p class="section-loading">{{t:site.loading}}</p></section>`).join('\n'),
};

function fillTemplate(tpl, lang, texts, name, titleKey) {
  if (tpl.includes('{{head}}')) tpl = tpl.replace('{{head}}', fs.readFileSync(HEAD_PARTIAL, 'utf8').trimEnd());
  for (const [part, markup] of Object.entries(LESSON_PARTS)) tpl = tpl.replace(new RegExp(`^[ \\t]*\\{\\{${part}\\}\\}`, 'm'), () => markup);
  const dict = texts[lang];
  const titleOf = (d) => String(d[titleKey] ?? d['site.title'] ?? 'Attention').replace(/`|\*\*|\$/g, '');
  const vars = {
    lang, dir: language(lang).dir, font: language(lang).font, csp: esc(CSP),
    title: esc(titleOf(dict)),
    titles: esc(LANGS.map((l) => titleOf(texts[l])).join(' — ')),
    // the chooser's description, in every edition (it serves them all)
    descriptions: esc(LANGS.map((l) => plainText(texts[l]['site.chooser.description'] ?? '')).filter(Boolean).join(' — ')),
  };
  tpl = tpl.replace(/\{\{#(languages|otherLanguages)\}\}([\s\S]*?)\{\{\/\1\}\}/g, (all, which, body) =>
    (which === 'languages' ? LANGUAGES : otherLanguages(lang)).map((l) => body
      .replace(/\{\{(t|a)\.@:/g, `{{$1.${l.code}:`)
      .replace(/\{\{l\.(code|dir|autonym|font)\}\}/g, (m, f) => esc(l[f]))).join(''));
  return tpl.replace(/\{\{\s*(?:(t|a)(?:\.([a-z]{2,3}))?:)?([A-Za-z0-9_.-]+)\s*\}\}/g, (all, kind, keyLang, key) => {
    if (kind) {
      const d = keyLang ? texts[keyLang] || {} : dict;
      if (!(key in d)) { errors.push(`${name} (${keyLang || lang}): template key "${key}" missing from text`); return ''; }
      // t: rich text for element content; a: plain escaped text for attributes
      return kind === 't' ? staticText(d[key]) : esc(plainText(d[key]));
    }
    if (key in vars) return vars[key];
    errors.push(`${name}: unknown placeholder ${all}`);
    return '';
  });
}

// @fontsource css for the arabic + latin subsets of weights 400 and 700, woff2 only, urls → files/.
function buildFontCss(pkg, name) {
  const dir = path.join(NM, '@fontsource', pkg);
  const out = [];
  const files = new Set();
  for (const w of [400, 700]) {
    for (const subset of ['arabic', 'latin']) {
      const f = path.join(dir, `${subset}-${w}.css`);
      if (!fs.existsSync(f)) { errors.push(`missing font css ${path.relative(ROOT, f)}`); continue; }
      let css = fs.readFileSync(f, 'utf8');
      css = css.replace(/src:\s*([^;]+);/g, (all, list) => {
        const woff2 = list.split(',').map((s) => s.trim()).filter((s) => /\.woff2\)/.test(s));
        return `src: ${woff2.join(', ')};`;
      });
      css = css.replace(/url\(\.\/files\/([^)]+)\)/g, (all, file) => { files.add(file); return `url(./files/${file})`; });
      // Same-origin (and cached offline) fonts arrive within a few frames: a short
      // invisible period beats the layout shift a swap causes in RTL paragraphs.
      css = css.replace(/font-display:\s*swap/g, 'font-display: block');
      out.push(css.trim());
    }
  }
  return { css: `/* ${name}: @fontsource/${pkg}, arabic + latin subsets, 400 + 700, woff2 (generated) */\n` + out.join('\n\n') + '\n', files: [...files], dir };
}

// vendor/katex/katex.mjs from katex.min.js (UMD): run it with a CommonJS-style `module` in
// scope and export what it returns, so `import('…/katex.mjs')` gives the same default export
// (render, renderToString, ParseError, version…) as the package's katex.mjs, in 273 KB
// instead of 603 KB. Falls back to copying katex.mjs when the minified file is missing.
function writeKatexModule(kd, dst) {
  const min = path.join(kd, 'katex.min.js');
  if (!fs.existsSync(min)) { copyFile(path.join(kd, 'katex.mjs'), dst); return; }
  const src = fs.readFileSync(min, 'utf8');
  const version = JSON.parse(fs.readFileSync(path.join(kd, '..', 'package.json'), 'utf8')).version;
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  fs.writeFileSync(dst, `/* KaTeX ${version} (MIT), katex.min.js wrapped as an ES module by build-scripts/make-site.mjs */\n` +
    'const module = { exports: {} };\nconst exports = module.exports;\n' + src.trim() + '\n' +
    'const katex = module.exports;\nexport default katex;\n' +
    'export const { render, renderToString, ParseError, SETTINGS_SCHEMA, version } = katex;\n');
}

// KaTeX font families: the ones any formula may use, plus those only some commands need,
// shipped when a text file or a module uses such a command (a formula with a dropped family
// would fall back to another font, never to a missing file: its @font-face goes too).
const KATEX_ALWAYS = ['AMS', 'Main', 'Math', 'Size1', 'Size2', 'Size3', 'Size4'];
const KATEX_BY_COMMAND = {
  Caligraphic: /\\(?:mathcal|cal)\b/,
  Fraktur: /\\(?:mathfrak|frak|Bbbk)\b/,
  Script: /\\mathscr\b/,
  SansSerif: /\\(?:mathsf|mathsfit|textsf|sf|sfit)\b/,
  Typewriter: /\\(?:mathtt|texttt|tt|verb)\b/,
};
function katexFamiliesUsed() {
  const sources = [];
  const walkSrc = (d) => { if (!fs.existsSync(d)) return; for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const f = path.join(d, e.name);
    if (e.isDirectory()) walkSrc(f); else if (/\.(json|mjs|js|html)$/.test(e.name)) sources.push(fs.readFileSync(f, 'utf8'));
  } };
  walkSrc(path.join(WEB, 'text')); walkSrc(path.join(WEB, 'js')); walkSrc(path.join(WEB, 'pages'));
  const all = sources.join('\n').replace(/\\\\/g, '\\');   // JSON and JS strings escape the backslash
  return new Set([...KATEX_ALWAYS, ...Object.keys(KATEX_BY_COMMAND).filter((fam) => KATEX_BY_COMMAND[fam].test(all))]);
}
// katex.min.css with @font-face rules for the shipped families only, woff2 only.
function writeKatexCss(src, dst, families) {
  if (!fs.existsSync(src)) { errors.push(`missing file: ${path.relative(ROOT, src)}`); return; }
  const css = fs.readFileSync(src, 'utf8').replace(/@font-face\{[^}]*\}/g, (rule) => {
    const fam = /KaTeX_([A-Za-z0-9]+)-/.exec(rule)?.[1] || /font-family:KaTeX_([A-Za-z0-9]+)/.exec(rule)?.[1];
    if (!families.has(fam)) return '';
    return rule.replace(/src:([^;}]+)/, (all, list) => `src:${list.split(',').filter((u) => /\.woff2\)/.test(u)).join(',')}`);
  });
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  fs.writeFileSync(dst, css);
}

// A page's <script type="module" src="X"> becomes js/pages/boot.mjs with data-entry="X": boot
// loads X once the first screen has painted (its header comment says why). The preloads the
// page needs next go into <template id="after-first-paint">, which boot adds to <head> then:
// the page's own <link rel="preload"> lines marked data-after-paint (web/pages/_head.html: the
// prose, KaTeX) and a <link rel="modulepreload"> for every module X imports statically
// (transitively, relative specifiers only), so the browser fetches the whole import graph at
// once instead of one level per round trip. Dynamic import() is not followed (sections and
// blocks load on their own).
const IMPORT_RE = /(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?['"](\.{1,2}\/[^'"]+)['"]/g;
const BOOT = path.join(OUT, 'js', 'pages', 'boot.mjs');   // the built copy, beside the pages
function staticImports(file, seen = new Set()) {
  if (seen.has(file) || !fs.existsSync(file)) return seen;
  seen.add(file);
  const src = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  for (const m of src.matchAll(IMPORT_RE)) staticImports(path.resolve(path.dirname(file), m[1]), seen);
  return seen;
}
function loadAfterFirstPaint(html, pageFile) {
  const dir = path.dirname(pageFile);
  const rel = (f) => path.relative(dir, f).split(path.sep).join('/');
  const later = [];
  html = html.replace(/<link ([^>]*)data-after-paint([^>]*)>\n?/g, (tag, a, b) => { later.push(`<link ${a.trim()} ${b.trim()}`.trim() + '>'); return ''; });
  return html.replace(/<script type="module" src="([^"]+)"><\/script>/g, (tag, src) => {
    const entry = path.resolve(dir, src);
    const deps = [...staticImports(entry)].filter((f) => f !== entry).sort();
    const links = [...later, ...deps.map((f) => `<link rel="modulepreload" href="${rel(f)}">`)];
    return ['<template id="after-first-paint">', ...links, '</template>',
      `<script type="module" src="${rel(BOOT)}" data-entry="${src}"></script>`].join('\n');
  });
}

// The service worker, written after every other file (build-scripts/sw-manifest.mjs).
function writeSw() {
  if (!fs.existsSync(SW_SOURCE)) { errors.push('missing file: web/sw.js'); return; }
  try {
    const { version, files } = writeServiceWorker(OUT);
    notes.push(`service worker: ${files.length} file(s) precached, version ${version}`);
  } catch (e) { errors.push(`web/sw.js: ${e.message}`); }
}

// ---------------------------------------------------------------- texts
const { texts, origin, terms, errors: loadErrors } = loadTextDir(TEXT_DIR);
errors.push(...loadErrors, ...checkTexts(texts));
// one term per concept in each language (web/text/<lang>/terms.json, not shipped)
for (const lang of LANGS) {
  if (!terms[lang]) errors.push(`missing web/text/${lang}/${TERMS_FILE} (the terminology the prose must follow)`);
  else {
    errors.push(...checkTerms(lang, texts[lang], terms[lang], origin[lang]));
    // the registry's own prose for the language (shown when the text file cannot load) follows the same terms
    const { textLoadFailed, notANumber } = language(lang);
    errors.push(...checkTerms(lang, { textLoadFailed, notANumber }, terms[lang], { textLoadFailed: '../js/i18n/languages.mjs', notANumber: '../js/i18n/languages.mjs' }));
  }
}
for (const lang of LANGS) if (!Object.keys(texts[lang]).length) errors.push(`no prose found for ${lang} in ${path.relative(ROOT, TEXT_DIR)}/${lang}/`);

if (!CHECK_ONLY) {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });

  copyDir(path.join(WEB, 'js'), path.join(OUT, 'js'), (name) => !name.endsWith('.md'));   // the READMEs stay in the repo
  // before the engine's files arrive (already compact); esbuild comes from npm ci: a copy of the
  // scripts without node_modules (the text-check tests) reports it with the other errors
  try {
    const { compactTree } = await import('./compact-js.mjs');
    const compact = compactTree(path.join(OUT, 'js'));
    notes.push(`js: ${Math.round(compact.before / 1024)} KiB of web/js written as ${Math.round(compact.after / 1024)} KiB (comments and indentation dropped)`);
  } catch (e) { errors.push(`js not compacted (esbuild, from npm ci): ${e.message.split('\n')[0]}`); }
  if (EXTRA_LANGUAGES.length) {
    fs.appendFileSync(path.join(OUT, 'js', 'i18n', 'languages.mjs'), '\n// Test-only editions added by make-site --extra-languages (never in a real build).\n' +
      `LANGUAGES.push(...${JSON.stringify(EXTRA_LANGUAGES)});\n`);
  }
  copyDir(path.join(WEB, 'css'), path.join(OUT, 'css'));
  for (const extra of ['img', 'assets']) copyDir(path.join(WEB, extra), path.join(OUT, extra));
  // The trained character models (web/models/<lang>.ckpt + .json) and the corpus each was
  // trained on (engine/tools/corpus/<lang>.txt → models/<lang>.corpus.txt), for the chapter on a
  // model that learned the reader's language. The page fetches them when the reader nears that
  // chapter; the service worker does not precache models/ (sw-manifest.mjs, MODELS_DIR) and
  // keeps a copy once fetched, so the first visit's budget is unchanged and the chapter still
  // works offline after one visit.
  // An edition with modelFrom (only the test-only ones above) has no trained model: its chapters
  // read that edition's (sections/model-compute.mjs, modelLanguage); every real edition has its own.
  for (const lang of LANGS.filter((l) => language(l).modelFrom === undefined)) {
    for (const ext of ['ckpt', 'json']) copyFile(path.join(WEB, 'models', `${lang}.${ext}`), path.join(OUT, 'models', `${lang}.${ext}`));
    copyFile(path.join(ROOT, 'engine', 'tools', 'corpus', `${lang}.txt`), path.join(OUT, 'models', `${lang}.corpus.txt`));
  }
  // the language chooser: one page, both languages (each part carries its own lang/dir)
  const chooser = path.join(WEB, 'index.html');
  if (fs.existsSync(chooser)) {
    fs.writeFileSync(path.join(OUT, 'index.html'), fillTemplate(fs.readFileSync(chooser, 'utf8'), LANGS[0], texts, 'index.html', 'site.title'));
  } else errors.push('missing file: web/index.html');

  fs.mkdirSync(path.join(OUT, 'text'), { recursive: true });
  for (const lang of LANGS) {
    fs.writeFileSync(path.join(OUT, 'text', `${lang}.json`), JSON.stringify(texts[lang], null, 1) + '\n');
  }

  // pages from templates
  const pages = [
    { tpl: 'lesson.html', out: 'index.html', titleKey: 'site.title', required: true },
    { tpl: 'practice.html', out: 'practice.html', titleKey: 'practice.title', required: false },
  ];
  for (const p of pages) {
    const f = path.join(WEB, 'pages', p.tpl);
    if (!fs.existsSync(f)) {
      if (p.required) errors.push(`missing template web/pages/${p.tpl}`);
      else notes.push(`web/pages/${p.tpl} absent: skipped`);
      continue;
    }
    const tpl = fs.readFileSync(f, 'utf8');
    for (const lang of LANGS) {
      const html = fillTemplate(tpl, lang, texts, p.tpl, p.titleKey);
      fs.mkdirSync(path.join(OUT, lang), { recursive: true });
      fs.writeFileSync(path.join(OUT, lang, p.out), html);
    }
  }

  // vendor: KaTeX (its minified build as an ES module: less than half the bytes of katex.mjs)
  const kd = path.join(NM, 'katex', 'dist');
  writeKatexModule(kd, path.join(OUT, 'vendor', 'katex', 'katex.mjs'));
  const katexFamilies = katexFamiliesUsed();
  writeKatexCss(path.join(kd, 'katex.min.css'), path.join(OUT, 'vendor', 'katex', 'katex.min.css'), katexFamilies);
  if (!copyDir(path.join(kd, 'fonts'), path.join(OUT, 'vendor', 'katex', 'fonts'),
    (n) => n.endsWith('.woff2') && katexFamilies.has(/^KaTeX_([A-Za-z0-9]+)-/.exec(n)?.[1]))) {
    errors.push('KaTeX fonts not found in node_modules/katex/dist/fonts');
  }
  notes.push(`KaTeX fonts: ${[...katexFamilies].sort().join(', ')}`);
  // vendor: fonts
  for (const pkg of new Set(LANGUAGES.map((l) => l.font))) {
    const { css, files, dir } = buildFontCss(pkg, pkg);
    fs.mkdirSync(path.join(OUT, 'vendor', 'fonts', 'files'), { recursive: true });
    fs.writeFileSync(path.join(OUT, 'vendor', 'fonts', `${pkg}.css`), css);
    for (const file of files) copyFile(path.join(dir, 'files', file), path.join(OUT, 'vendor', 'fonts', 'files', file));
  }
  // vendor: ts-fsrs
  copyFile(path.join(NM, 'ts-fsrs', 'dist', 'index.mjs'), path.join(OUT, 'vendor', 'ts-fsrs', 'index.mjs'));

  // engine (build-scripts/build copies it too; harmless twice)
  if (fs.existsSync(ENGINE_DIST)) {
    const n = copyDir(ENGINE_DIST, path.join(OUT, 'js'));
    notes.push(`engine: ${n} file(s) from build/engine-dist`);
  } else notes.push('engine: build/engine-dist absent (the lesson will show its engine error)');

  // page checks over everything we wrote
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'vendor' ? [] : walk(path.join(d, e.name))) : [path.join(d, e.name)]);
  for (const f of walk(OUT).filter((x) => x.endsWith('.html'))) {
    const html = loadAfterFirstPaint(fs.readFileSync(f, 'utf8'), f);
    fs.writeFileSync(f, html);
    errors.push(...checkPageHtml(html, path.relative(OUT, f)));
  }

  writeSw();
} else {
  for (const p of ['index.html', 'pages/_head.html', 'pages/lesson.html', 'pages/practice.html']) {
    const f = path.join(WEB, p);
    if (fs.existsSync(f)) errors.push(...checkPageHtml(fs.readFileSync(f, 'utf8'), `web/${p}`));
  }
}

for (const n of notes) console.log(`make-site: ${n}`);
if (errors.length) {
  console.error(`make-site: ${errors.length} problem(s):`);
  for (const e of errors) console.error(`  - ${e}`);
  process.exit(1);
}
console.log(`make-site: ${CHECK_ONLY ? 'checks passed' : `wrote ${path.relative(ROOT, OUT) || OUT}`} (${LANGS.map((l) => `${l}: ${Object.keys(texts[l]).length} keys`).join(', ')})`);
