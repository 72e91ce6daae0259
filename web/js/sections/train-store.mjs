// Where chapter 14 keeps the reader's training run between visits: IndexedDB (a checkpoint
// with the optimizer's state is hundreds of kilobytes, past what localStorage is for).
// Database DB_NAME, object store STORE, one record per language under the key `lang`, in the
// format of train-compute.mjs (encodeRun/decodeRun: format, version, checksum).
// Like the practice progress (store/progress.mjs), nothing here throws to the page:
//   load(lang)   → {status: 'none'} | {status: 'ok', run} | {status: 'refused', reason}
//                  | {status: 'unavailable'}   (no IndexedDB, private mode, a blocked open)
//   save(lang, record, {expect}) → {ok: true} | {ok: false, reason: 'conflict' | 'unavailable' | 'quota' | 'failed'}
//                  expect: the savedAt of the copy this tab last read or wrote (null: none). The
//                  saved copy is read and written in ONE transaction, and a copy another tab wrote
//                  since (another savedAt) is never overwritten: 'conflict'.
//   clear(lang)  → {ok}
// A refused record is left where it is until the reader starts a fresh run (clear + save),
// so a newer version of the site that wrote it loses nothing by an older tab's visit.
// Two tabs: each write compares first (above); the tab that finds another's newer copy stops
// saving and tells the reader, so no tab's progress is silently lost to the other's.
import { decodeRun } from './train-compute.mjs';

export const DB_NAME = 'attn-lesson-train';
export const DB_VERSION = 1;
export const STORE = 'runs';

function open(idb) {
  return new Promise((resolve, reject) => {
    let req;
    try { req = idb.open(DB_NAME, DB_VERSION); } catch (e) { reject(e); return; }
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE);
    };
    req.onsuccess = () => {
      const db = req.result;
      db.onversionchange = () => db.close();   // a newer tab upgrades: let it
      resolve(db);
    };
    req.onerror = () => reject(req.error);
    req.onblocked = () => reject(new Error('blocked'));
  });
}

function tx(db, mode, fn) {
  return new Promise((resolve, reject) => {
    const t = db.transaction(STORE, mode);
    let result;
    const r = fn(t.objectStore(STORE));
    if (r) r.onsuccess = () => { result = r.result; };
    t.oncomplete = () => resolve(result);
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error || new Error('aborted'));
  });
}

// The savedAt of a stored record, null when there is none or it cannot be read (a damaged copy
// is the reader's to replace: train.mjs only saves over it after "start afresh").
function savedAtOf(record) {
  if (!record || typeof record.meta !== 'string') return null;
  try { const m = JSON.parse(record.meta); return typeof m?.savedAt === 'string' ? m.savedAt : null; } catch { return null; }
}

export function openRunStore({ indexedDB: idb = globalThis.indexedDB } = {}) {
  let dbp = null;
  const db = () => {
    if (!idb) return Promise.reject(new Error('no IndexedDB'));
    if (!dbp) { dbp = open(idb); dbp.catch(() => { dbp = null; }); }
    return dbp;
  };
  return {
    async load(lang) {
      let record;
      try { record = await tx(await db(), 'readonly', (s) => s.get(lang)); } catch { return { status: 'unavailable' }; }
      if (record === undefined) return { status: 'none' };
      const r = decodeRun(record, { lang });
      return r.ok ? { status: 'ok', run: r.run } : { status: 'refused', reason: r.reason };
    },
    async save(lang, record, { expect = null } = {}) {
      try {
        let conflict = false;
        await tx(await db(), 'readwrite', (s) => {
          const r = s.get(lang);
          r.onsuccess = () => {
            if (savedAtOf(r.result) !== expect) { conflict = true; return; }
            s.put(record, lang);
          };
          return null;
        });
        return conflict ? { ok: false, reason: 'conflict' } : { ok: true };
      } catch (e) {
        if (!idb) return { ok: false, reason: 'unavailable' };
        return { ok: false, reason: e && e.name === 'QuotaExceededError' ? 'quota' : 'failed' };
      }
    },
    async clear(lang) {
      try { await tx(await db(), 'readwrite', (s) => s.delete(lang)); return { ok: true }; } catch { return { ok: false }; }
    },
  };
}
