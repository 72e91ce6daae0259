// Property tests (fast-check) of the progress store (web/js/store/): random and
// hostile envelopes (any JSON, __proto__ / constructor keys, deep nesting, huge
// files, wrong checksums, old and new versions) never throw and always leave valid
// data; merging two copies is order-independent and loses no record; two tabs
// writing in any interleaving keep every record.
import test from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openProgress, checkImport, makeEnvelope, checksum, KEY, BACKUP_KEY, FORMAT } from '../../web/js/store/progress.mjs';
import { emptyData, validateData, isCompleteData, SCHEMA_VERSION, MAX_QUIZ_HISTORY } from '../../web/js/store/schema.mjs';
import { mergeData } from '../../web/js/store/merge.mjs';
import { FakeStorage } from './fake-storage.mjs';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const quiet = { now: () => NOW, onError: () => {} };

// ---------------------------------------------------------------- arbitraries of VALID data
const iso = fc.integer({ min: Date.parse('2024-01-01'), max: Date.parse('2027-01-01') }).map((t) => new Date(t).toISOString());
// Few ids, so that two copies share records; two of them are Object.prototype names.
const id = fc.constantFrom('c01', 'c02', 'main', 'softmax-weight', 'try.e1', 'constructor', 'toString');
const size = fc.double({ min: 0, max: 1000, noNaN: true });
const card = fc.record({
  due: iso, stability: size, difficulty: size, elapsed_days: fc.nat(400), scheduled_days: fc.nat(400),
  learning_steps: fc.nat(3), reps: fc.nat(50), lapses: fc.nat(50), state: fc.constantFrom(0, 1, 2, 3), last_review: iso,
}, { requiredKeys: ['due', 'stability', 'difficulty', 'elapsed_days', 'scheduled_days', 'learning_steps', 'reps', 'lapses', 'state'] });
const exercise = fc.nat(40).chain((attempts) => fc.record({
  attempts: fc.constant(attempts), correct: fc.nat(attempts), lastStatus: fc.constantFrom('correct', 'wrong', 'unparseable'),
  lastSeed: fc.integer({ min: 0, max: 2 ** 32 - 1 }), updatedAt: iso,
}, { requiredKeys: ['attempts', 'correct', 'updatedAt'] }));
const quizResult = fc.integer({ min: 1, max: 20 }).chain((total) => fc.record({ at: iso, score: fc.nat(total), total: fc.constant(total) }));
const guess = fc.record({ value: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 30 })), at: iso });
const roundItem = fc.oneof(
  fc.record({ kind: fc.constant('mcq'), id, order: fc.shuffledSubarray(['o1', 'o2', 'o3', 'o4'], { minLength: 4 }) }),
  fc.record({ kind: fc.constant('numeric'), id, seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }) }, { requiredKeys: ['kind', 'id'] }),
);
const round = fc.array(roundItem, { minLength: 1, maxLength: 12 }).chain((items) => fc.nat(items.length).chain((i) =>
  fc.record({ items: fc.constant(items), i: fc.constant(i), score: fc.nat(i), done: fc.boolean(), updatedAt: iso })));
const settings = fc.record({ lang: fc.constantFrom('fa', 'ar', null), latinDigits: fc.boolean(), updatedAt: iso }, { requiredKeys: ['lang', 'latinDigits'] });
const map = (v) => fc.dictionary(id, v, { maxKeys: 4 });
const validData = fc.record({
  settings, cards: map(card), exercises: map(exercise), quizzes: map(fc.array(quizResult, { maxLength: 8 })), guesses: map(guess), rounds: map(round),
});

// JSON with sorted keys: the same data whatever order the keys were written in.
const canon = (x) => JSON.stringify(x, (k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
const time = (s) => (s ? Date.parse(s) : -Infinity);
const STAMP = { cards: (c) => time(c.last_review), exercises: (e) => time(e.updatedAt), guesses: (g) => time(g.at), rounds: (r) => time(r.updatedAt) };

const plainObjects = (d) => Object.getPrototypeOf(d) === Object.prototype &&
  Object.values(d).every((s) => Object.getPrototypeOf(s) === Object.prototype);

// ---------------------------------------------------------------- merge
test('merge: valid, order-independent (commutative, associative), idempotent', () => {
  fc.assert(fc.property(validData, validData, validData, (a, b, c) => {
    const m = mergeData(a, b);
    assert.ok(isCompleteData(m), 'the merge validates with nothing dropped');
    assert.equal(canon(m), canon(mergeData(b, a)), 'commutative');
    assert.equal(canon(mergeData(m, c)), canon(mergeData(a, mergeData(b, c))), 'associative');
    assert.equal(canon(mergeData(m, m)), canon(m), 'idempotent');
    return true;
  }), { numRuns: 300 });
});

test('merge: no record is lost, and the newer of two records wins', () => {
  fc.assert(fc.property(validData, validData, (a, b) => {
    const m = mergeData(a, b);
    for (const [section, stamp] of Object.entries(STAMP)) {
      for (const src of [a, b]) {
        for (const [k, rec] of Object.entries(src[section])) {
          assert.ok(Object.hasOwn(m[section], k), `${section}.${k} kept`);
          assert.ok(stamp(m[section][k]) >= stamp(rec), `${section}.${k}: not older than either copy`);
        }
      }
    }
    for (const q of new Set([...Object.keys(a.quizzes), ...Object.keys(b.quizzes)])) {
      const own = (x) => (Object.hasOwn(x.quizzes, q) ? x.quizzes[q] : []);
      const all = [...own(a), ...own(b)];
      const keyOf = (r) => `${r.at}|${r.score}|${r.total}`;
      const distinct = new Set(all.map(keyOf));
      assert.equal(m.quizzes[q].length, Math.min(distinct.size, MAX_QUIZ_HISTORY), `quiz ${q}: every distinct round`);
      assert.ok(m.quizzes[q].every((r, i, l) => i === 0 || time(l[i - 1].at) <= time(r.at)), 'oldest first');
    }
    return true;
  }), { numRuns: 300 });
});

// ---------------------------------------------------------------- hostile saved copies
const anyJson = fc.jsonValue({ maxDepth: 4 });
// Objects whose keys are prototype names (JSON.parse makes "__proto__" an own key).
const hostileKeys = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'c01', 'settings', 'cards');
const hostileObject = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, anyJson, fc.dictionary(hostileKeys, tie('node'), { maxKeys: 4 })),
})).node;
const sectionNames = fc.constantFrom('settings', 'cards', 'exercises', 'quizzes', 'guesses', 'rounds');
const hostileData = fc.oneof(
  anyJson, hostileObject,
  validData,
  // a valid copy with one section (or one entry) replaced by something hostile
  fc.tuple(validData, sectionNames, hostileObject).map(([d, s, x]) => ({ ...d, [s]: x })),
  fc.tuple(validData, sectionNames, hostileKeys, hostileObject).map(([d, s, k, x]) => {
    const out = JSON.parse(JSON.stringify(d));
    if (out[s] && typeof out[s] === 'object') Object.defineProperty(out[s], k, { value: x, enumerable: true, configurable: true, writable: true });
    return out;
  }),
);
const envelopeText = fc.record({
  format: fc.oneof(fc.constant(FORMAT), fc.string()),
  version: fc.oneof(fc.integer({ min: -1, max: SCHEMA_VERSION + 2 }), anyJson),
  checksumOk: fc.boolean(),
  badSum: fc.stringMatching(/^[0-9a-f]{8}$/),
  data: hostileData,
  dropData: fc.boolean(),
}).map(({ format, version, checksumOk, badSum, data, dropData }) => {
  const env = { format, version, savedAt: NOW.toISOString(), checksum: checksumOk ? checksum(JSON.stringify(data)) : badSum };
  if (!dropData) env.data = data;
  return JSON.stringify(env);
});
const savedText = fc.oneof(fc.constant(null), envelopeText, fc.string({ unit: 'binary', maxLength: 200 }), anyJson.map(JSON.stringify));

test('any saved copy and backup: opening never throws, the data is valid, no prototype is touched', () => {
  fc.assert(fc.property(savedText, savedText, (main, backup) => {
    const storage = new FakeStorage();
    if (main !== null) storage.setItem(KEY, main);
    if (backup !== null) storage.setItem(BACKUP_KEY, backup);
    const s = openProgress({ storage, ...quiet });
    const d = s.get();
    assert.ok(isCompleteData(d), 'complete and valid');
    assert.ok(plainObjects(d), 'plain objects only');
    assert.equal({}.polluted, undefined);
    assert.ok(Object.isFrozen(d));
    // …and it still works: an update is saved unless a newer site's copy is protected.
    assert.deepEqual(s.update((x) => { x.guesses.p = { value: 1, at: NOW.toISOString() }; }), { ok: true });
    const unknown = s.notices.some((n) => n.code === 'unknown-version');
    assert.equal(s.persistent, !unknown);
    if (!unknown) assert.ok(openProgress({ storage, ...quiet }).get().guesses.p, 'saved');
    return true;
  }), { numRuns: 1500 });
});

test('any file: import never throws; a refused file changes nothing; an accepted one validates', () => {
  fc.assert(fc.property(validData, fc.oneof(savedText.filter((t) => t !== null), fc.anything()), (start, file) => {
    const storage = new FakeStorage();
    const s = openProgress({ storage, ...quiet });
    s.import(makeEnvelope(start, NOW));
    const before = storage.getItem(KEY);
    const data = s.get();
    const r = s.import(file);
    if (!r.ok) {
      assert.equal(typeof r.error, 'string');
      assert.equal(s.get(), data, 'same data');
      assert.equal(storage.getItem(KEY), before, 'same saved copy');
    } else {
      assert.ok(isCompleteData(s.get()) && plainObjects(s.get()));
    }
    return true;
  }), { numRuns: 800 });
});

test('versions: import reads 1 and 2 (1 migrated) and refuses older and newer; loading a newer one stays in memory', () => {
  fc.assert(fc.property(validData, fc.integer({ min: -3, max: SCHEMA_VERSION + 5 }), (d, version) => {
    const data = structuredClone(d);
    if (version === 1) delete data.rounds;   // the version-1 layout
    const text = JSON.stringify({ format: FORMAT, version, savedAt: NOW.toISOString(), checksum: checksum(JSON.stringify(data)), data });
    const r = checkImport(text);
    if (version === 1 || version === SCHEMA_VERSION) {
      assert.ok(r.ok, `version ${version} imports`);
      assert.deepEqual(r.data, validateData({ ...data, rounds: data.rounds ?? {} }).data);
    } else {
      assert.deepEqual(r, { ok: false, error: 'unsupported-version' }, `version ${version}`);
    }
    const storage = new FakeStorage();
    storage.setItem(KEY, text);
    const s = openProgress({ storage, ...quiet });
    assert.equal(s.persistent, version <= SCHEMA_VERSION);
    if (version >= 1) assert.equal(canon(s.get()), canon(validateData(data).data), 'every valid record kept');
    return true;
  }), { numRuns: 300 });
});

test('a wrong checksum is refused on import; on load the valid records are salvaged (or the backup wins)', () => {
  fc.assert(fc.property(validData, fc.stringMatching(/^[0-9a-f]{8}$/), fc.boolean(), (d, sum, withBackup) => {
    fc.pre(sum !== checksum(JSON.stringify(d)));
    const text = JSON.stringify({ format: FORMAT, version: SCHEMA_VERSION, savedAt: NOW.toISOString(), checksum: sum, data: d });
    assert.deepEqual(checkImport(text), { ok: false, error: 'bad-checksum' });
    const storage = new FakeStorage();
    storage.setItem(KEY, text);
    if (withBackup) storage.setItem(BACKUP_KEY, makeEnvelope(emptyData(), NOW));
    const s = openProgress({ storage, ...quiet });
    assert.deepEqual(s.notices.map((n) => n.code), [withBackup ? 'recovered-backup' : 'recovered-partial']);
    assert.equal(canon(s.get()), canon(withBackup ? emptyData() : validateData(d).data));
    return true;
  }), { numRuns: 200 });
});

test('export → import into an empty browser gives the same progress', () => {
  fc.assert(fc.property(validData, (d) => {
    const a = openProgress({ storage: new FakeStorage(), ...quiet });
    assert.deepEqual(a.import(makeEnvelope(d, NOW)), { ok: true });
    const b = openProgress({ storage: new FakeStorage(), ...quiet });
    assert.deepEqual(b.import(a.export()), { ok: true });
    assert.equal(canon(b.get()), canon(a.get()));
    assert.equal(canon(a.get()), canon(mergeData(emptyData(), validateData(d).data)));
    return true;
  }), { numRuns: 200 });
});

test('deep nesting and huge copies: refused or read, never a crash', () => {
  const deep = (n) => '['.repeat(n) + ']'.repeat(n);
  for (const n of [1000, 100000, 1000000]) {
    for (const text of [
      `{"format":"${FORMAT}","version":${SCHEMA_VERSION},"checksum":"00000000","data":${deep(n)}}`,
      `{"format":"${FORMAT}","version":${SCHEMA_VERSION},"checksum":"00000000","data":{"cards":${deep(n)}}}`,
      deep(n),
    ]) {
      const storage = new FakeStorage();
      storage.setItem(KEY, text);
      const s = openProgress({ storage, ...quiet });
      assert.ok(isCompleteData(s.get()), `nesting ${n}`);
      assert.equal(s.persistent, true);
      assert.equal(s.import(text).ok, false);
    }
  }
  // A valid copy of a few MB (many exercises) loads whole; the same as a file is over the import limit.
  const big = emptyData();
  for (let i = 0; i < 40000; i++) big.exercises[`ex-${i}`] = { attempts: 1, correct: 1, updatedAt: NOW.toISOString() };
  const text = makeEnvelope(big, NOW);
  assert.ok(text.length > 2_000_000);
  const storage = new FakeStorage();
  storage.setItem(KEY, text);
  assert.equal(Object.keys(openProgress({ storage, ...quiet }).get().exercises).length, 40000);
  assert.deepEqual(checkImport(text), { ok: false, error: 'too-large' });
});

// ---------------------------------------------------------------- two tabs, any interleaving
test('two tabs writing in any order, hearing each other or not: every record written is kept', () => {
  const op = fc.record({
    tab: fc.constantFrom(0, 1),
    section: fc.constantFrom('exercises', 'guesses', 'cards'),
    id,
    deliver: fc.constantFrom('none', 'other', 'both'),
  });
  // Each tab's clock moves forward; the two clocks may disagree by up to 9 minutes.
  // At the end the saved copy holds, for every record, one at least as new as every write
  // (a write over a record with a later stamp from the other tab's clock is made 1 ms later),
  // and every tab that heard the last write agrees with it.
  fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 25 }), fc.tuple(fc.integer({ min: -9, max: 9 }), fc.integer({ min: -9, max: 9 })), (ops, skew) => {
    const storage = new FakeStorage();
    const buses = [new EventTarget(), new EventTarget()];
    const tabs = buses.map((events) => openProgress({ storage, events, ...quiet }));
    const written = [];   // [section, id, stamp]
    const deliver = (i) => {
      const ev = new Event('storage');
      ev.key = KEY;
      ev.newValue = storage.getItem(KEY);
      buses[i].dispatchEvent(ev);
    };
    for (const [n, o] of ops.entries()) {
      const at = new Date(NOW.getTime() + (10 * n + skew[o.tab]) * 60000).toISOString();
      const rec = o.section === 'exercises' ? { attempts: 1, correct: 1, updatedAt: at }
        : o.section === 'guesses' ? { value: n, at }
          : { due: at, stability: 1, difficulty: 1, elapsed_days: 0, scheduled_days: 0, learning_steps: 0, reps: 1, lapses: 0, state: 1, last_review: at };
      assert.deepEqual(tabs[o.tab].update((d) => { d[o.section][o.id] = rec; }), { ok: true });
      written.push([o.section, o.id, Date.parse(at)]);
      if (o.deliver !== 'none') deliver(1 - o.tab);
      if (o.deliver === 'both') deliver(o.tab);
    }
    const final = openProgress({ storage, ...quiet }).get();
    for (const [section, k, stamp] of written) {
      assert.ok(Object.hasOwn(final[section], k), `${section}.${k} kept`);
      assert.ok(STAMP[section](final[section][k]) >= stamp, `${section}.${k}: the newest write wins`);
    }
    // Both tabs hear the last saved copy: then they hold the same progress as the saved copy.
    deliver(0);
    deliver(1);
    assert.equal(canon(tabs[0].get()), canon(final), 'tab 1 agrees with the saved copy');
    assert.equal(canon(tabs[1].get()), canon(final), 'tab 2 agrees with the saved copy');
    return true;
  }), { numRuns: 300 });
});
