// The learner's progress (settings, flashcards, exercises, quiz history and the
// round in progress, guesses) in ONE localStorage key, written whole, with a
// checksum and a backup of the previous good copy. The store never throws to the
// page: every problem becomes a notice {code, sections?} that the page shows
// through the text key `practice.notice.<code>`:
//   'storage-unavailable'  storage missing or throwing: progress lives in memory for this visit
//   'quota-exceeded'       a write did not fit: progress lives in memory from now on
//   'reset-corrupt'        the saved copy (and its backup) were unreadable: started afresh
//   'recovered-backup'     the saved copy was damaged: the previous good copy was loaded
//   'recovered-partial'    some sections (listed) were invalid and were reset, the rest kept
//   'migrated'             saved by an older version and something (listed) could not be kept
//                          (a clean migration, e.g. version 1 → 2, says nothing)
//   'unknown-version'      saved by a newer version of the site: kept what validates for this
//                          visit, in memory; the newer copy is never overwritten
//   'not-saved'            an update was refused (a record the schema does not accept, or the
//                          block's update threw): that change was not kept (sections: where);
//                          said once per list of sections and visit
//
// Envelope written under KEY (and BACKUP_KEY):
//   {format: FORMAT, version: SCHEMA_VERSION, savedAt: ISO, checksum: fnv1a32(JSON of data), data}
// The checksum catches truncated or hand-edited copies, not tampering.
// Export uses the same envelope, so an exported file is also a valid backup.
//
// Several tabs: progress is never lost to "the last save wins". Before each write
// the store reads the saved copy and merges it in (merge.mjs: per record, the newer
// wins), and it listens for the `storage` event that another tab's write fires, merges
// that copy too and tells its subscribers, so open tabs stay in step. That alone is not
// atomic: a tab reads its own cached view of localStorage, which another tab's write
// reaches only later, so two tabs saving at the same moment can each write a copy that
// lacks the other's newest record. So whenever another tab's copy arrives lacking
// something this tab holds, this tab writes the merge back (compare and merge, retried on
// every arrival): the tabs converge on a saved copy holding every record. (A lock such
// as navigator.locks would not make the read fresh: the cached view is the problem.)
// An import is a merge as well: nothing newer in this browser is overwritten by an older file.
//
// Usage: const store = openProgress({storage})  (storage defaults to localStorage)
//   store.get()                       frozen snapshot of the data (schema.mjs)
//   store.update(draft => {...})      mutate a copy; validated, saved, subscribers told → {ok, error?}
//                                     (blocks write through store/records.mjs, which checks `ok`)
//   store.subscribe(fn) → unsubscribe fn(data, notices, {source: 'update'|'import'|'merge'|'reset'|'refused'})
//     'merge' = another tab's change arrived: blocks re-render what they show of the data
//     'refused' = an update was refused: a 'not-saved' notice was added, the data did not change
//   store.notices, store.persistent, store.export(), store.import(text), store.reset()
//   store.close()                     stop listening to other tabs (tests)

import { SCHEMA_VERSION, emptyData, validateData, isCompleteData, migrate } from './schema.mjs';
import { mergeData, sameData } from './merge.mjs';

export const KEY = 'attn-lesson.progress';
export const BACKUP_KEY = 'attn-lesson.progress.backup';
export const FORMAT = 'attn-lesson-progress';
const MAX_IMPORT_CHARS = 2_000_000;
// The oldest file version import still reads (1: the first published format).
const OLDEST_IMPORT = 1;

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
  // (stringify recurses: data nested thousands deep throws a RangeError, and is corrupt.)
  let sum;
  try {
    sum = checksum(JSON.stringify(data));
  } catch {
    return { kind: 'corrupt' };
  }
  if (typeof env.checksum !== 'string' || env.checksum !== sum) {
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
  if (main.kind === 'old-version') {
    const { data, droppedSections } = validateData(migrate(main.data, main.version));
    const notices = droppedSections.length ? [{ code: 'migrated', sections: droppedSections }] : [];
    return { data, notices, lastGood: mainText };
  }
  if (main.kind === 'new-version') return { ...salvage(main, 'unknown-version'), lastGood: mainText };

  // The main copy is damaged or missing: the previous good copy wins if it is intact.
  if (backup.kind === 'ok' || backup.kind === 'old-version') {
    const { data, droppedSections } = validateData(migrate(backup.data, backup.version));
    return { data, notices: [{ code: 'recovered-backup', sections: droppedSections }], lastGood: backupText };
  }
  if (main.kind === 'bad-checksum') {
    const { data, droppedSections } = validateData(migrate(main.data, main.version));
    return { data, notices: [{ code: 'recovered-partial', sections: droppedSections }], lastGood: null };
  }
  return { data: emptyData(), notices: [{ code: 'reset-corrupt', sections: [] }], lastGood: null };
}

// Where a throwing subscriber's error goes: the browser's error reporting
// (window.onerror, the console) without unwinding the store.
const reportError = (e) => (globalThis.reportError ?? console.error)(e);

/**
 * Open the progress store. Never throws. opts: {storage, now: () => Date, onError,
 * events}: `events` is where another tab's `storage` events arrive (default: the
 * window, when storage is the default localStorage; pass an EventTarget in tests).
 */
export function openProgress({ storage, now = () => new Date(), onError = reportError, events } = {}) {
  const notices = [];
  const listeners = new Set();
  let backend = usableStorage(storage);
  let data;
  let lastGood = null;
  let lastSeen = null;   // the saved text this copy already holds (read or written by us)

  if (!backend) {
    notices.push({ code: 'storage-unavailable', sections: [] });
    data = emptyData();
  } else {
    try {
      const mainText = backend.getItem(KEY);
      const r = recover(mainText, backend.getItem(BACKUP_KEY));
      data = r.data;
      lastGood = r.lastGood;
      lastSeen = mainText;
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

  function notify(change) {
    for (const fn of [...listeners]) {
      try {
        fn(data, notices, change);
      } catch (e) {
        // A broken subscriber must not stop the others nor the store.
        onError(e);
      }
    }
  }

  // A saved copy written by another tab (or another version of this site), as
  // valid data of our version; null when it is not worth merging (ours, missing,
  // damaged, or from a newer site).
  function foreign(text) {
    if (text === null || text === lastSeen) return null;
    const env = readEnvelope(text);
    if (env.kind !== 'ok' && env.kind !== 'old-version') return null;
    return validateData(migrate(env.data, env.version)).data;
  }

  // Read what another tab saved since we last looked and merge it into ours.
  function absorbSaved() {
    let text;
    try {
      text = backend.getItem(KEY);
    } catch {
      return;
    }
    const theirs = foreign(text);
    if (theirs) {
      data = deepFreeze(mergeData(data, theirs));
      lastGood = text;
    }
    lastSeen = text;
  }

  // Backup first, then the main copy in one setItem: a failure between the two
  // leaves the main copy as it was, never half written. merge=false (reset) writes
  // this copy as it is.
  function persist({ merge = true } = {}) {
    if (!backend) return;
    if (merge) absorbSaved();
    const text = makeEnvelope(data, now());
    try {
      if (lastGood !== null) backend.setItem(BACKUP_KEY, lastGood);
      backend.setItem(KEY, text);
      lastGood = lastSeen = text;
    } catch (e) {
      // The backup doubles the space we use; give it up before giving up storage.
      try {
        backend.removeItem(BACKUP_KEY);
        backend.setItem(KEY, text);
        lastGood = lastSeen = text;
        return;
      } catch {
        /* fall through */
      }
      backend = null;
      notices.push({ code: isQuotaError(e) ? 'quota-exceeded' : 'storage-unavailable', sections: [] });
    }
  }

  function replace(next, source, opts) {
    data = deepFreeze(next);
    persist(opts);
    notify({ source });
  }

  // Another tab saved: merge its copy, and tell the blocks when anything changed. When its
  // copy lacks something this tab holds (it was written from a view that had not seen our
  // last save yet), the merge is written back: the saved copy would otherwise lose it.
  const onStorage = (e) => {
    if (!backend || (e.key !== KEY) || (e.storageArea && e.storageArea !== backend)) return;
    const theirs = foreign(e.newValue);
    if (!theirs) return;
    const merged = mergeData(data, theirs);
    lastGood = lastSeen = e.newValue;
    const changed = !sameData(merged, data);
    if (changed) data = deepFreeze(merged);
    if (!sameData(merged, theirs)) persist({ merge: false });
    if (changed) notify({ source: 'merge' });
  };
  const bus = events !== undefined ? events : (storage === undefined ? globalThis.window : null);
  if (backend && bus && typeof bus.addEventListener === 'function') bus.addEventListener('storage', onStorage);

  // A refused update: said once per list of sections (the page shows store notices in its
  // language), and subscribers are told so the page can show it at once.
  const refusedSaid = new Set();
  function refuse(error, sections, detail) {
    const key = sections.join(',');
    if (!refusedSaid.has(key)) {
      refusedSaid.add(key);
      notices.push({ code: 'not-saved', sections });
      notify({ source: 'refused' });
    }
    return detail === undefined ? { ok: false, error, sections } : { ok: false, error, sections, detail };
  }

  // Settings have no stamp of their own in the blocks' updates: the store stamps them.
  // And a record changed here is this tab's newest: when its stamp is not later than
  // the one it replaces (another tab's clock runs ahead), it becomes 1 ms later, so every
  // tab's merge agrees that this change wins.
  function stamp(prev, next) {
    const strip = ({ updatedAt, ...rest }) => JSON.stringify(rest);
    if (strip(prev.settings) !== strip(next.settings)) next.settings.updatedAt = now().toISOString();
    for (const [section, field] of STAMPED) {
      for (const [id, rec] of Object.entries(next[section])) {
        const old = Object.hasOwn(prev[section], id) ? prev[section][id] : undefined;
        if (!old || rec[field] === undefined || JSON.stringify(old) === JSON.stringify(rec)) continue;
        const was = Date.parse(old[field] ?? '');
        if (Date.parse(rec[field]) <= was) rec[field] = new Date(was + 1).toISOString();
      }
    }
    if (prev.settings.updatedAt && next.settings.updatedAt && strip(prev.settings) !== strip(next.settings) &&
        Date.parse(next.settings.updatedAt) <= Date.parse(prev.settings.updatedAt)) {
      next.settings.updatedAt = new Date(Date.parse(prev.settings.updatedAt) + 1).toISOString();
    }
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
    /**
     * fn gets a mutable copy; it may mutate it or return a new object. Never throws: a
     * refused change → {ok: false, error: 'update-threw'|'invalid-state', sections} and a
     * 'not-saved' notice; the data and the saved copy stay as they were.
     */
    update(fn) {
      let next;
      try {
        const draft = structuredClone(data);
        const returned = fn(draft);
        next = returned === undefined ? draft : returned;
      } catch (e) {
        return refuse('update-threw', [], String(e?.message ?? e));
      }
      // The draft is the caller's object: a getter or a Proxy in it can throw from any read.
      let valid;
      try {
        if (!isCompleteData(next)) return refuse('invalid-state', invalidSections(next));
        valid = validateData(next).data;
      } catch (e) {
        return refuse('invalid-state', [], String(e?.message ?? e));
      }
      stamp(data, valid);
      replace(valid, 'update');
      return { ok: true };
    },
    export() {
      return makeEnvelope(data, now());
    },
    /**
     * Merge an exported file into the progress (per record, the newer wins).
     * Refused files change nothing → {ok: false, error: code}. Never throws.
     */
    import(text) {
      let result;
      try {
        result = checkImport(text);
        if (!result.ok) return result;
        replace(mergeData(data, result.data), 'import');
      } catch (e) {
        onError(e);
        return { ok: false, error: 'invalid-data' };
      }
      return { ok: true };
    },
    /** Forget everything in this copy (other open tabs keep theirs). */
    reset() {
      replace(emptyData(), 'reset', { merge: false });
    },
    close() {
      if (bus && typeof bus.removeEventListener === 'function') bus.removeEventListener('storage', onStorage);
      listeners.clear();
    },
  };
}

/**
 * Validate an export file. → {ok: true, data} | {ok: false, error: code}.
 * Files of an older version are migrated (version 1 → 2); newer ones are refused.
 */
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
  if (env.kind === 'new-version' || env.version < OLDEST_IMPORT) return { ok: false, error: 'unsupported-version' };
  const data = migrate(env.data, env.version);
  if (!isCompleteData(data)) return { ok: false, error: 'invalid-data' };
  return { ok: true, data: validateData(data).data };
}

// The sections of a refused draft that would lose something (never throws).
function invalidSections(next) {
  try {
    return validateData(next).droppedSections;
  } catch {
    return [];
  }
}

// The field that dates each record of a map section (merge.mjs compares them).
const STAMPED = [['cards', 'last_review'], ['exercises', 'updatedAt'], ['guesses', 'at'], ['rounds', 'updatedAt']];

/** The text key a page shows for a store notice. */
export const noticeKey = (notice) => `practice.notice.${notice.code}`;

// One store per page, opened on first use (settings.mjs and the practice blocks share it).
let shared = null;
export function getProgressStore() {
  if (!shared) shared = openProgress();
  return shared;
}
