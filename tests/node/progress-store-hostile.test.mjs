// store.update() never throws to the page (progress.mjs's promise), whatever the draft holds:
// a getter that throws, a Proxy whose traps throw, a revoked Proxy, a cycle. It answers
// {ok: false, error} and changes nothing (neither the data nor the saved copy).
import test from 'node:test';
import assert from 'node:assert/strict';
import { openProgress, KEY } from '../../web/js/store/progress.mjs';
import { FakeStorage } from './fake-storage.mjs';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const boom = () => { throw new Error('hostile'); };

const HOSTILE = {
  'a throwing getter on a section': (d) => { Object.defineProperty(d, 'exercises', { get: boom, enumerable: true }); },
  'a throwing getter on a record': (d) => { d.exercises.e = {}; Object.defineProperty(d.exercises.e, 'attempts', { get: boom, enumerable: true }); },
  'a Proxy whose ownKeys throws': (d) => { d.cards = new Proxy({}, { ownKeys: boom }); },
  'a Proxy whose get throws': (d) => { d.settings = new Proxy({ lang: 'fa', latinDigits: false }, { get: boom }); },
  'a Proxy for the whole draft': (d) => new Proxy(d, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom }),
  'a revoked Proxy': (d) => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); d.guesses = proxy; },
  'a cycle': (d) => { d.guesses.g = { value: 1, at: NOW.toISOString() }; d.guesses.g.self = d.guesses.g; },
};

for (const [name, draft] of Object.entries(HOSTILE)) {
  test(`update() with ${name}: {ok: false}, never a throw, nothing changed`, () => {
    const storage = new FakeStorage();
    const store = openProgress({ storage, now: () => NOW, events: null });
    store.update((d) => { d.settings.lang = 'ar'; });
    const before = storage.getItem(KEY);
    const data = store.get();
    let r;
    assert.doesNotThrow(() => { r = store.update(draft); });
    assert.equal(r.ok, false);
    assert.equal(typeof r.error, 'string');
    assert.equal(store.get(), data, 'the data is unchanged');
    assert.equal(storage.getItem(KEY), before, 'the saved copy is unchanged');
  });
}
