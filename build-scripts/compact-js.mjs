// The site's own modules go out without their comments and indentation: the code is written
// for the people who change it (about 40% of web/js is comments), and a first visit
// precaches every module (web/README.md, "Load budget"). esbuild rewrites whitespace only:
// no renaming, no syntax lowering, so what runs is the code in web/js.
import fs from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';

export function compactModule(source, file = '<module>') {
  return transformSync(source, {
    loader: 'js', format: 'esm', target: 'esnext', minifyWhitespace: true, legalComments: 'none', sourcefile: file,
  }).code;
}

// Rewrites every .mjs / .js file under dir in place; returns the bytes before and after.
export function compactTree(dir) {
  let before = 0, after = 0;
  for (const ent of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!ent.isFile() || !/\.m?js$/.test(ent.name)) continue;
    const file = path.join(ent.parentPath ?? ent.path, ent.name);
    const src = fs.readFileSync(file, 'utf8');
    const out = compactModule(src, file);
    before += Buffer.byteLength(src);
    after += Buffer.byteLength(out);
    fs.writeFileSync(file, out);
  }
  return { before, after };
}
