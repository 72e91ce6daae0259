// Transfer budget (issue 5, target 7): a first visit of one edition of the lesson in a fresh
// profile (the page, its engine worker and everything the service worker precaches during
// the visit) downloads less than 1.5 MB. Bytes, not time: nothing here is timed.
//
// The visit is made by engine/bench/page-metrics.mjs (raw DevTools protocol, no request
// interception: interception would turn the HTTP cache off, and the precache relies on it
// to get a bodiless 304 for each file the page has just loaded). Its byte count is the one
// a TCP relay in front of the test server sees (every byte the server sent: headers and
// bodies, every connection); the per-request DevTools count must agree with it, so no
// request goes unseen. See web/README.md, "Load budget".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL } from './helpers.mjs';
import { startRelay, visit } from '../../engine/bench/page-metrics.mjs';

const BUDGET = 1_500_000;   // bytes, "1.5 MB"
const FONT = { fa: 'vazirmatn', ar: 'noto-naskh-arabic' };
const kb = (b) => `${(b / 1024).toFixed(1)} KiB`;

for (const lang of ['fa', 'ar']) {
  test(`first visit of /${lang}/: page + engine + service-worker precache < 1.5 MB, each file downloaded once`, { timeout: 150000 }, async () => {
    if (!BASE_URL) throw new Error('BASE_URL is not set: run the tests through tests/browser/run.mjs');
    const relay = await startRelay(Number(new URL(BASE_URL).port));
    let r;
    try {
      r = await visit(`http://127.0.0.1:${relay.port}`, relay, lang, { moves: 0 });
    } finally {
      relay.stop();
    }
    const { wire, cdp, byType, all } = r.bytes;
    const summary = `${kb(wire)} (${Object.entries(byType).map(([t, b]) => `${t} ${kb(b)}`).join(', ')})`;
    assert.equal(r.controlled, true, 'the service worker took control (its precache finished)');
    assert.ok(all.some((x) => x.by === 'service_worker'), 'the service worker\'s own requests were seen');
    // Chromium has relaxed SIMD: it loads (and precaches) attn-relaxed.wasm only
    assert.ok(all.some((x) => x.path.endsWith('/attn-relaxed.wasm')), 'the engine\'s wasm was seen');
    assert.ok(!all.some((x) => x.path.endsWith('/attn.wasm')), 'the other engine build was not downloaded');
    // The DevTools count covers what the server sent: nothing was missed, nothing counted twice.
    assert.ok(Math.abs(cdp - wire) <= 0.03 * wire, `DevTools sum ${cdp} B vs ${wire} B on the wire`);
    assert.ok(wire < BUDGET, `first visit of /${lang}/ transferred ${wire} B ≥ ${BUDGET} B: ${summary}`);

    // No file comes down twice (the precache revalidates what the page loaded: a 304).
    const byPath = new Map();
    for (const x of all) byPath.set(x.path, [...(byPath.get(x.path) || []), x.bytes]);
    const twice = [...byPath].filter(([, b]) => b.length > 1 && b.sort((p, q) => q - p)[1] > 1000)
      .map(([p, b]) => `${p} ${b.join(' + ')} B`);
    assert.deepEqual(twice, [], 'files downloaded twice');

    // The page itself loads only its own edition's font (the precache takes the other one
    // for offline use of the other edition, after the page is ready).
    const other = FONT[lang === 'fa' ? 'ar' : 'fa'];
    const wrongFont = all.filter((x) => x.by !== 'service_worker' && x.path.includes(`/${other}`)).map((x) => x.path);
    assert.deepEqual(wrongFont, [], `the ${lang} page loaded the other edition's font`);
    console.log(`/${lang}/ first visit: ${summary}; ${all.length} requests, ${all.filter((x) => x.by === 'service_worker').length} by the service worker`);
  });
}
