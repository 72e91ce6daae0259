// The learner's progress (settings, flashcards, exercises, quiz history,
// guesses) in ONE localStorage key, written whole, with a checksum and a
// backup of the previous good copy. The store never throws to the page: every
// problem becomes a notice {code, sections?} that the page shows through the
// text key `practice.notice.<code>`:
//   'storage-unavailable'  storage missing or throwing: progress lives in memory for this visit
//   'quota-exceeded'       a write did not fit: progress lives in memory from now on
//   'reset-corrupt'        the saved copy (and its backup) were unreadable: started afresh
//   'recovered-backup'     the saved copy was damaged: the previous good copy was loaded
//   'recovered-partial'    some sections (listed) were invalid and were reset, the rest kept
//   'migrated'             saved by an older version: kept what still validates
//   'unknown-version'      saved by a newer version of the site: kept what validates for this
//                          visit, in memory; the newer copy is never overwritten
//
// Envelope written under KEY (and BACKUP_KEY):
//   {format: FORMAT, version: 1, savedAt: ISO, checksum: fnv1a32(JSON of data), data}
// The checksum catches truncated or hand-edited copies, not tampering.
// Export uses the same envelope, so an exported file is also a valid backup.
//
// Usage: const store = openProgress({storage})  (storage defaults to localStorage)
//   store.get()                       frozen snapshot of the data (schema.mjs)
//   store.update(draft => {...})      mutate a copy; validated, saved, subscribers told → {ok, error?}
//   store.subscribe(fn) → unsubscribe fn(data, notices)
//   store.notices, store.persistent, store.export(), store.import(text), store.reset()

import { SCHEMA_VERSION, emptyData, validateData, isCompleteData } from './schema.mjs';

export const KEY = 'attn-lesson.progress';
export const BACKUP_KEY = 'attn-lesson.progress.backup';
export const FORMAT = 'attn-lesson-progress';
const MAX_IMPORT_CHARS = 2_000_000;

/** FNV-1a, 32 bits, over UTF-16 code units; 8 hex digits. */
export function checksum(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

export function makeEnvelope(data, now = new Date()) {
  return JSON.stringify({
    format: FORMAT,
    version: SCHEMA_VERSION,
    savedAt: now.toISOString(),
    checksum: checksum(JSON.stringify(data)),
    data,
  });
}

/**
 * Read an envelope string. → {kind: 'ok'|'bad-checksum'|'old-version'|'new-version', version, data}
 * or {kind: 'corrupt'} when it is not JSON or not our envelope at all.
 */
export function readEnvelope(text) {
  let env;
  try {
    env = JSON.parse(text);
  } catch {
    return { kind: 'corrupt' };
  }
  // An envelope without its own `data` is not ours (JSON.stringify(undefined)
  // is not a string: hashing it threw a TypeError before this check).
  if (env === null || typeof env !== 'object' || Array.isArray(env) || env.format !== FORMAT ||
      !Number.isInteger(env.version) || !Object.hasOwn(env, 'data')) {
    return { kind: 'corrupt' };
  }
  const { version, data } = env;
  // JSON.parse then stringify reproduces the exact text we hashed (key order and
  // number spelling survive a round trip), so this compares like with like.
  if (typeof env.checksum !== 'string' || env.checksum !== checksum(JSON.stringify(data))) {
    return { kind: 'bad-checksum', version, data };
  }
  if (version < SCHEMA_VERSION) return { kind: 'old-version', version, data };
  if (version > SCHEMA_VERSION) return { kind: 'new-version', version, data };
  return { kind: 'ok', version, data };
}

function deepFreeze(x) {
  if (x && typeof x === 'object') {
    Object.freeze(x);
    for (const v of Object.values(x)) deepFreeze(v);
  }
  return x;
}

const isQuotaError = (e) =>
  e && (e.name === 'QuotaExceededError' || e.name === 'NS_ERROR_DOM_QUOTA_REACHED' || e.code === 22 || e.code === 1014);

// Resolve the storage without letting a SecurityError (cookies blocked) escape,
// and probe it: old Safari private mode has a localStorage whose setItem throws.
function usableStorage(storage) {
  try {
    const s = storage === undefined ? globalThis.localStorage : storage;
    if (!s) return null;
    const probe = KEY + '.probe';
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

// Decide what to load from the main and backup strings. Pure: returns
// {data, notices, lastGood} where lastGood is the string worth keeping as backup.
export function recover(mainText, backupText) {
  if (mainText === null && backupText === null) return { data: emptyData(), notices: [], lastGood: null };

  const main = mainText === null ? { kind: 'missing' } : readEnvelope(mainText);
  const backup = backupText === null ? { kind: 'missing' } : readEnvelope(backupText);

  const salvage = (env, code) => {
    const { data, droppedSections } = validateData(env.data);
    const notices = [];
    if (code) notices.push({ code, sections: droppedSections });
    else if (droppedSections.length) notices.push({ code: 'recovered-partial', sections: droppedSections });
    return { data, notices };
  };

  if (main.kind === 'ok') return { ...salvage(main), lastGood: mainText };
  if (main.kind === 'old-version') return { ...salvage(main, 'migrated'), lastGood: mainText };
  if (main.kind === 'new-version') return { ...salvage(main, 'unknown-version'), lastGood: mainText };

  // The main copy is damaged or missing: the previous good copy wins if it is intact.
  if (backup.kind === 'ok') {
    const { data, droppedSections } = validateData(backup.data);
    return { data, notices: [{ code: 'recovered-backup', sections: droppedSections }], lastGood: backupText };
  }
  if (main.kind === 'bad-checksum') {
    const { data, droppedSections } = validateData(main.data);
    return { data, notices: [{ code: 'recovered-partial', sections: droppedSections }], lastGood: null };
  }
  return { data: emptyData(), notices: [{ code: 'reset-corrupt', sections: [] }], lastGood: null };
}

// Where a throwing subscriber's error goes: the browser's error reporting
// (window.onerror, the console) without unwinding the store.
const reportError = (e) => (globalThis.reportError ?? console.error)(e);

/** Open the progress store. Never throws. opts: {storage, now: () => Date, onError}. */
export function openProgress({ storage, now = () => new Date(), onError = reportError } = {}) {
  const notices = [];
  const listeners = new Set();
  let backend = usableStorage(storage);
  let data;
  let lastGood = null;

  if (!backend) {
    notices.push({ code: 'storage-unavailable', sections: [] });
    data = emptyData();
  } else {
    try {
      const r = recover(backend.getItem(KEY), backend.getItem(BACKUP_KEY));
      data = r.data;
      lastGood = r.lastGood;
      notices.push(...r.notices);
      // A newer site wrote this copy: writing our older schema over it would
      // lose what we cannot read, so this visit works in memory only.
      if (r.notices.some((n) => n.code === 'unknown-version')) backend = null;
    } catch {
      backend = null;
      data = emptyData();
      notices.push({ code: 'storage-unavailable', sections: [] });
    }
  }
  deepFreeze(data);

  function notify() {
    for (const fn of [...listeners]) {
      try {
        fn(data, notices);
      } catch (e) {
        // A broken subscriber must not stop the others nor the store.
        onError(e);
      }
    }
  }

  // Backup first, then the main copy in one setItem: a failure between the two
  // leaves the main copy as it was, never half written.
  function persist() {
    if (!backend) return;
    const text = makeEnvelope(data, now());
    try {
      if (lastGood !== null) backend.setItem(BACKUP_KEY, lastGood);
      backend.setItem(KEY, text);
      lastGood = text;
    } catch (e) {
      // The backup doubles the space we use; give it up before giving up storage.
      try {
        backend.removeItem(BACKUP_KEY);
        backend.setItem(KEY, text);
        lastGood = text;
        return;
      } catch {
        /* fall through */
      }
      backend = null;
      notices.push({ code: isQuotaError(e) ? 'quota-exceeded' : 'storage-unavailable', sections: [] });
    }
  }

  function replace(next) {
    data = deepFreeze(next);
    persist();
    notify();
  }

  return {
    get: () => data,
    get notices() {
      return notices;
    },
    get persistent() {
      return backend !== null;
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    /** fn gets a mutable copy; it may mutate it or return a new object. */
    update(fn) {
      let next;
      try {
        const draft = structuredClone(data);
        const returned = fn(draft);
        next = returned === undefined ? draft : returned;
      } catch (e) {
        return { ok: false, error: 'update-threw', detail: String(e?.message ?? e) };
      }
      if (!isCompleteData(next)) return { ok: false, error: 'invalid-state' };
      replace(validateData(next).data);
      return { ok: true };
    },
    export() {
      return makeEnvelope(data, now());
    },
    /** Replace everything with an exported file. Refused files change nothing. */
    import(text) {
      const result = checkImport(text);
      if (!result.ok) return result;
      replace(result.data);
      return { ok: true };
    },
    reset() {
      replace(emptyData());
    },
  };
}

/** Validate an export file. → {ok: true, data} | {ok: false, error: code}. */
export function checkImport(text) {
  if (typeof text !== 'string' || text.trim() === '') return { ok: false, error: 'empty' };
  if (text.length > MAX_IMPORT_CHARS) return { ok: false, error: 'too-large' };
  const env = readEnvelope(text);
  if (env.kind === 'corrupt') {
    try {
      JSON.parse(text);
    } catch {
      return { ok: false, error: 'not-json' };
    }
    return { ok: false, error: 'wrong-format' };
  }
  if (env.kind === 'bad-checksum') return { ok: false, error: 'bad-checksum' };
  if (env.kind === 'new-version' || env.kind === 'old-version') return { ok: false, error: 'unsupported-version' };
  if (!isCompleteData(env.data)) return { ok: false, error: 'invalid-data' };
  return { ok: true, data: validateData(env.data).data };
}

// One store per page, opened on first use (settings.mjs and the practice blocks share it).
let shared = null;
export function getProgressStore() {
  if (!shared) shared = openProgress();
  return shared;
}
