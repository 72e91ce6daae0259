// build-scripts/static-server.mjs (the dev server, the tests' and the benchmark's): a folder
// asked without its trailing slash is redirected to the same folder with one, always on this
// server. A path that starts with '//' once resolved (`/.//evil.example/…`) must never become
// a protocol-relative `Location: //evil.example/…` (an open redirect to another host).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStaticServer } from '../../build-scripts/static-server.mjs';

let root, server;
before(async () => {
  root = mkdtempSync(join(tmpdir(), 'static-server-'));
  mkdirSync(join(root, 'fa'));
  writeFileSync(join(root, 'fa', 'index.html'), '<!doctype html><title>fa</title>');
  server = await startStaticServer({ root, port: 0 });
});
after(async () => { await server?.close(); rmSync(root, { recursive: true, force: true }); });

// The request line is sent exactly as written (no client-side normalisation).
function get(path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a folder without its slash redirects to itself with one, query kept', async () => {
  assert.deepEqual(await get('/fa'), { status: 301, location: '/fa/' });
  assert.deepEqual(await get('/fa?s4.dk=16'), { status: 301, location: '/fa/?s4.dk=16' });
  assert.equal((await get('/fa/')).status, 200);
});

test('no redirect leaves the server: paths that resolve to a folder through //, dots or escapes', async () => {
  const hostile = [
    '/.//evil.example/x%2f%2e%2e%2f%2e%2e%2ffa',
    '//evil.example/%2e%2e/fa',
    '/.//evil.example/..%2f..%2ffa',
    '/%2f%2fevil.example/..%2f..%2f..%2ffa',
    '/./%2Fevil.example%2F..%2F..%2Ffa',
    '/.%2F%2Fevil.example%2F..%2F..%2Ffa',
    '/.//evil.example/x%2f%2e%2e%2f%2e%2e?next=1',
    '/.//evil.example/x%2f%2e%2e%2f%2e%2e',
    '/%5C%5Cevil.example/..%2f..%2ffa',
  ];
  const base = `http://127.0.0.1:${server.port}`;
  for (const path of hostile) {
    const { status, location } = await get(path);
    if (location === undefined) continue;   // not found, bad request or served: nothing to follow
    assert.equal(status, 301, path);
    assert.ok(!/^\s*[/\\]{2}/.test(location) && !/^[a-z][a-z0-9+.-]*:/i.test(location), `${path} → Location: ${location}`);
    assert.equal(new URL(location, base).origin, base, `${path} → Location: ${location}`);
  }
});
