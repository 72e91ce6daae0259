// The load budget's server and build side (web/README.md, "Load budget"; the browser side is
// tests/browser/page-budget.test.mjs). Bytes and headers only, nothing timed:
// - build-scripts/serve.mjs compresses text (brotli / gzip by Accept-Encoding, Vary), sends
//   ETags and answers a matching If-None-Match with a bodiless 304, keeps the CSP header;
// - the built site (SITE_DIR or build/site; skipped when absent): every file, as the server
//   sends it to a browser that accepts gzip (the service worker precaches them on the first
//   visit: all but models/ and the engine build that browser cannot run), sums to less than
//   the 1.5 MB a first visit may transfer; each page loads
//   only its own edition's font.
import { MODELS_DIR } from '../../build-scripts/sw-manifest.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { CSP } from '../../build-scripts/site-policy.mjs';
import { spawnServe } from '../../build-scripts/static-server.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SITE = process.env.SITE_DIR ? path.resolve(process.env.SITE_DIR) : path.join(REPO, 'build', 'site');
const BUDGET = 1_500_000;

async function serve(dir) {
  return spawnServe({ site: dir });
}

// GET with raw (still encoded) body; `bytes` = status line + headers + body as sent.
function get(port, p, headers = {}, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: p, method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const head = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n` +
          res.rawHeaders.reduce((s, v, i) => s + (i % 2 ? `${v}\r\n` : `${v}: `), '') + '\r\n';
        resolve({ status: res.statusCode, headers: res.headers, body, bytes: Buffer.byteLength(head) + body.length });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

test('serve.mjs: compressed text with Vary, ETag → 304, CSP kept, fonts as they are', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-serve-'));
  const js = 'export const words = [' + Array.from({ length: 400 }, (_, i) => `"word${i % 37}"`).join(',') + '];\n';
  fs.mkdirSync(path.join(dir, 'js'));
  fs.writeFileSync(path.join(dir, 'js', 'a.mjs'), js);
  fs.writeFileSync(path.join(dir, 'font.woff2'), Buffer.alloc(2000, 7));
  const srv = await serve(dir);
  try {
    const gz = await get(srv.port, '/js/a.mjs', { 'accept-encoding': 'gzip, deflate' });
    assert.equal(gz.status, 200);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers.vary, 'Accept-Encoding');
    assert.equal(gz.headers['content-security-policy'], CSP);
    assert.equal(gz.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(Number(gz.headers['content-length']), gz.body.length);
    assert.ok(gz.body.length < js.length / 2, `gzip shrinks the file (${gz.body.length} of ${js.length} B)`);
    assert.equal(zlib.gunzipSync(gz.body).toString(), js, 'gzip round trip');

    const br = await get(srv.port, '/js/a.mjs', { 'accept-encoding': 'gzip, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(zlib.brotliDecompressSync(br.body).toString(), js, 'brotli round trip');
    assert.notEqual(br.headers.etag, gz.headers.etag, 'one ETag per encoding');

    const plain = await get(srv.port, '/js/a.mjs', { 'accept-encoding': 'identity' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body.toString(), js);
    const none = await get(srv.port, '/js/a.mjs', { 'accept-encoding': 'gzip;q=0, br;q=0' });
    assert.equal(none.headers['content-encoding'], undefined, 'q=0 refuses an encoding');

    const again = await get(srv.port, '/js/a.mjs', { 'accept-encoding': 'gzip, deflate', 'if-none-match': gz.headers.etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.etag, gz.headers.etag);
    assert.equal(again.headers['content-security-policy'], CSP);
    assert.equal(again.headers['cache-control'], 'no-cache', 'always revalidated, never stale');

    // an edited file has a new ETag at once: the old one no longer matches
    fs.appendFileSync(path.join(dir, 'js', 'a.mjs'), '// edited\n');
    const edited = await get(srv.port, '/js/a.mjs', { 'accept-encoding': 'gzip, deflate', 'if-none-match': gz.headers.etag });
    assert.equal(edited.status, 200);
    assert.match(zlib.gunzipSync(edited.body).toString(), /edited/);

    const font = await get(srv.port, '/font.woff2', { 'accept-encoding': 'gzip, br' });
    assert.equal(font.headers['content-encoding'], undefined, 'fonts are sent as they are');
    assert.equal(font.headers['content-type'], 'font/woff2');
    assert.equal(font.body.length, 2000);

    const head = await get(srv.port, '/js/a.mjs', { 'accept-encoding': 'gzip' }, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.equal(head.headers['content-encoding'], 'gzip');
    assert.equal((await get(srv.port, '/js')).status, 301);
    assert.equal((await get(srv.port, '/missing.mjs')).status, 404);
  } finally {
    srv.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function siteFiles(dir, rel = '') {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory()
    ? siteFiles(path.join(dir, e.name), `${rel}${e.name}/`) : [`${rel}${e.name}`]));
}

const built = fs.existsSync(path.join(SITE, 'fa', 'index.html'));
test('the built site, as served (gzip), is under the first-visit budget', { skip: !built && `no site at ${SITE}` }, async () => {
  const srv = await serve(SITE);
  try {
    let total = 0;
    const byType = {};
    // What the service worker precaches (web/sw.js install): not models/ (fetched when the reader
    // nears its chapter, sw-manifest.mjs), and only one of the two engine builds (the one this
    // browser can run): the larger of the two counts.
    const ENGINE_BUILDS = ['js/attn.wasm', 'js/attn-relaxed.wasm'];
    let engineBuild = 0;
    for (const f of siteFiles(SITE).filter((f) => !f.startsWith(MODELS_DIR))) {
      const r = await get(srv.port, '/' + f, { 'accept-encoding': 'gzip, deflate' });
      assert.equal(r.status, 200, f);
      if (ENGINE_BUILDS.includes(f)) { engineBuild = Math.max(engineBuild, r.bytes); continue; }
      total += r.bytes;
      const t = /\.woff2$/.test(f) ? 'font' : /\.wasm$/.test(f) ? 'wasm' : /\.m?js$/.test(f) ? 'js' : /\.css$/.test(f) ? 'css' : 'other';
      byType[t] = (byType[t] || 0) + r.bytes;
    }
    total += engineBuild;
    byType.wasm = (byType.wasm || 0) + engineBuild;
    const detail = Object.entries(byType).map(([t, b]) => `${t} ${(b / 1024).toFixed(1)} KiB`).join(', ');
    // the page's own requests come on top only as 304s (~0.5 KB each, tens of them)
    assert.ok(total + 60_000 < BUDGET, `the whole site is ${total} B as served (${detail}); with the page's revalidations it would exceed ${BUDGET} B`);
  } finally {
    srv.stop();
  }
});

test('each edition loads only its own font (preloads and stylesheets)', { skip: !built && `no site at ${SITE}` }, () => {
  const FONT = { fa: 'vazirmatn', ar: 'noto-naskh-arabic' };
  for (const lang of ['fa', 'ar']) {
    const other = FONT[lang === 'fa' ? 'ar' : 'fa'];
    for (const page of ['index.html', 'practice.html']) {
      const f = path.join(SITE, lang, page);
      if (!fs.existsSync(f)) continue;
      const html = fs.readFileSync(f, 'utf8');
      const links = [...html.matchAll(/<link\b[^>]*href="([^"]+)"/g)].map((m) => m[1]);
      assert.ok(links.some((h) => h.includes(FONT[lang])), `${lang}/${page} links its font`);
      assert.deepEqual(links.filter((h) => h.includes(other)), [], `${lang}/${page} links the other edition's font`);
    }
  }
});
