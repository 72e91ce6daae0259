// Two tabs saving progress at the same moment lose nothing (web/js/store/progress.mjs).
// A browser gives each tab its own cached view of localStorage: a tab's write changes its view
// at once and reaches the shared copy, then the other tab's view (with a `storage` event), only
// later. So a tab can read a view that lacks the other's newest record and write over it. This
// simulates that (seeded, discrete time, random delays; a view ignores another tab's value for a
// key while its own write of that key is still on the way, as Chromium's does), runs the race
// many times, and checks that once everything has arrived the saved copy holds every record
// both tabs wrote, and so does each tab.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openProgress, readEnvelope, KEY } from '../../web/js/store/progress.mjs';

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A browser with `tabs` tabs: one shared copy, one view and one event bus per tab, and a
// clock whose queue runs the commits, the deliveries and the tabs' own work in time order.
function browser(random, tabs = 2) {
  const shared = new Map();
  const queue = [];
  let now = 0, seq = 0;
  const at = (t, fn) => { queue.push({ t, seq: seq++, fn }); };
  const delay = () => 1 + Math.floor(random() * 6);
  const views = [];
  for (let i = 0; i < tabs; i++) {
    const cache = new Map();
    const pending = new Map();   // key → writes of this tab still on the way
    const bus = new EventTarget();
    const storage = {
      getItem: (k) => (cache.has(k) ? cache.get(k) : null),
      setItem(k, v) {
        v = String(v);
        cache.set(k, v);
        pending.set(k, (pending.get(k) || 0) + 1);
        at(now + delay(), () => {
          shared.set(k, v);
          pending.set(k, pending.get(k) - 1);
          for (const other of views) if (other !== view) at(now + delay(), () => other.receive(k, v));
        });
      },
      removeItem(k) { cache.delete(k); at(now + delay(), () => shared.delete(k)); },
    };
    const view = {
      storage, bus,
      receive(k, v) {
        if (pending.get(k)) return;   // this tab's own newer write is still on the way
        cache.set(k, v);
        const ev = new Event('storage');
        Object.assign(ev, { key: k, newValue: v, storageArea: storage });
        bus.dispatchEvent(ev);
      },
    };
    views.push(view);
  }
  return {
    views, shared, at,
    get now() { return now; },
    run(limit = 1e6) {
      let steps = 0;
      while (queue.length) {
        if (++steps > limit) throw new Error('the tabs never settle (writing back and forth)');
        queue.sort((x, y) => x.t - y.t || x.seq - y.seq);
        const next = queue.shift();
        now = next.t;
        next.fn();
      }
    },
  };
}

function race(seed, { perTab = 30 } = {}) {
  const random = rng(seed);
  const b = browser(random);
  const clock = () => new Date(Date.UTC(2026, 0, 1) + b.now);
  const stores = b.views.map((v) => openProgress({ storage: v.storage, events: v.bus, now: clock }));
  const names = ['A', 'B'];
  const wrote = [];
  stores.forEach((store, t) => {
    let when = 0;
    for (let i = 0; i < perTab; i++) {
      when += Math.floor(random() * 4);   // often at the same moment as the other tab
      const id = `${names[t]}${i}`;
      wrote.push(id);
      b.at(when, () => {
        const r = store.update((d) => { d.guesses[id] = { value: i, at: clock().toISOString() }; });
        assert.equal(r.ok, true);
      });
    }
  });
  b.run();
  const saved = readEnvelope(b.shared.get(KEY));
  assert.equal(saved.kind, 'ok');
  const lost = wrote.filter((id) => !Object.hasOwn(saved.data.guesses, id));
  const held = stores.map((s) => wrote.filter((id) => !Object.hasOwn(s.get().guesses, id)).length);
  for (const s of stores) s.close();
  return { lost, held };
}

test('two tabs saving at the same moments: the saved copy keeps every record (200 seeded races)', () => {
  const failures = [];
  for (let seed = 1; seed <= 200; seed++) {
    const { lost, held } = race(seed);
    if (lost.length || held.some((n) => n)) failures.push(`seed ${seed}: saved copy lacks ${lost.join(' ') || 'nothing'}; tabs lack ${held.join(', ')}`);
  }
  assert.deepEqual(failures, [], failures.slice(0, 5).join('\n'));
});

test('three tabs: the same, and the tabs settle (no endless writing back)', () => {
  // three stores on one simulated browser: reuse the race with a third tab's writes
  for (let seed = 1; seed <= 40; seed++) {
    const random = rng(1000 + seed);
    const b = browser(random, 3);
    const clock = () => new Date(Date.UTC(2026, 0, 1) + b.now);
    const stores = b.views.map((v) => openProgress({ storage: v.storage, events: v.bus, now: clock }));
    const wrote = [];
    stores.forEach((store, t) => {
      let when = 0;
      for (let i = 0; i < 15; i++) {
        when += Math.floor(random() * 3);
        const id = `T${t}-${i}`;
        wrote.push(id);
        b.at(when, () => store.update((d) => { d.exercises[id] = { attempts: 1, correct: 1, updatedAt: clock().toISOString() }; }));
      }
    });
    b.run();
    const saved = readEnvelope(b.shared.get(KEY)).data;
    assert.deepEqual(wrote.filter((id) => !Object.hasOwn(saved.exercises, id)), [], `seed ${seed}`);
    for (const s of stores) s.close();
  }
});
