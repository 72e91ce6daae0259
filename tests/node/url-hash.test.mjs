// hashId (web/js/pages/url-hash.mjs), the one way the pages read an element id from the URL's
// #hash: every hash, however mangled, gives a string and never throws (a malformed %-escape
// threw a URIError from the lesson's and the practice page's boot, and nothing was built).
import test from 'node:test';
import assert from 'node:assert/strict';
import { hashId } from '../../web/js/pages/url-hash.mjs';

test('hashId decodes a well-formed hash', () => {
  assert.equal(hashId('#s2'), 's2');
  assert.equal(hashId(''), '');
  assert.equal(hashId('#'), '');
  assert.equal(hashId('#ref-vaswani2017'), 'ref-vaswani2017');
  assert.equal(hashId('#%D8%B3%D9%84%D8%A7%D9%85'), 'سلام');
  assert.equal(hashId('s4'), 's4', 'without the #, as a caller may pass it');
});

test('hashId never throws on a malformed %-escape: such a hash names nothing', () => {
  for (const bad of ['#%', '#%%', '#%ZZ', '#%E0%A4%A', '#%F0%9F%98', '#%C0%AF', '#s2%', '#%D8']) {
    assert.doesNotThrow(() => hashId(bad), bad);
    assert.equal(hashId(bad), '', bad);
  }
});

test('hashId reads location.hash by default', () => {
  const saved = globalThis.location;
  try {
    globalThis.location = { hash: '#%' };
    assert.equal(hashId(), '');
    globalThis.location = { hash: '#s8' };
    assert.equal(hashId(), 's8');
  } finally {
    globalThis.location = saved;
  }
});

test('partsForHash (lazy-mount.mjs, called before any section mounts): a malformed hash is no hash', async () => {
  const { partsForHash } = await import('../../web/js/pages/lazy-mount.mjs');
  const saved = { location: globalThis.location, document: globalThis.document };
  try {
    const asked = [];
    globalThis.document = { getElementById: (id) => { asked.push(id); return null; } };
    for (const bad of ['#%', '#%ZZ', '#%E0%A4%A']) {
      globalThis.location = { hash: bad };
      // no part is urgent and none is looked up (an unknown id would make every part mount)
      assert.deepEqual(partsForHash(['intro', 's1']), [], bad);
    }
    assert.deepEqual(asked, []);
  } finally {
    Object.assign(globalThis, saved);
  }
});
