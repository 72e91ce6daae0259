// Writes <site>/sw.js from web/sw.js: MANIFEST = every file of the site (sorted,
// '/'-separated, relative to the root) except sw.js itself and models/ (MODELS_DIR); VERSION = sha-256 over all
// paths and bytes and the worker's own source. Any change to the site therefore changes
// sw.js, which makes browsers install the new worker (web/README.md, "Offline").
// Used by make-site.mjs (last step) and by tests/browser/offline.test.mjs (a "new build").
//
//   import { writeServiceWorker } from './sw-manifest.mjs';
//   const { version, files } = writeServiceWorker(siteDir);   // throws on a missing placeholder
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';

export const SW_SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'web', 'sw.js');

function listFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]);
}

// Fetched only when the reader nears the chapter that uses them (the trained models and
// their corpus, about 0.7 MB): left out of the precache so a first visit does not download
// them; the worker's cache-first fetch keeps them once fetched. Still part of VERSION, so a
// retrained model replaces the old copy.
export const MODELS_DIR = 'models/';

export function writeServiceWorker(siteDir, source = SW_SOURCE) {
  const all = listFiles(siteDir).map((f) => path.relative(siteDir, f).split(path.sep).join('/'))
    .filter((f) => f !== 'sw.js').sort();
  const files = all.filter((f) => !f.startsWith(MODELS_DIR));
  const tpl = fs.readFileSync(source, 'utf8');
  const hash = crypto.createHash('sha256');
  for (const f of all) hash.update(`${f}\0`).update(fs.readFileSync(path.join(siteDir, f))).update('\0');
  hash.update(tpl);
  const version = hash.digest('hex').slice(0, 20);
  let out = tpl;
  const fill = (re, value, what) => {
    if (!re.test(out)) throw new Error(`${path.basename(source)}: placeholder ${what} not found`);
    out = out.replace(re, () => value);
  };
  fill(/\/\* @sw-version \*\/ '[^']*'/, JSON.stringify(version), '/* @sw-version */');
  fill(/\/\* @sw-manifest \*\/ \[\]/, JSON.stringify(files, null, 1), '/* @sw-manifest */');
  fs.writeFileSync(path.join(siteDir, 'sw.js'), out);
  return { version, files };
}
