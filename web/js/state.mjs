// URL state: what the learner set (seed, n, d_k, scale, causal, block sizes,
// edited matrices…) lives in the query string as `<section>.<key>=value`, so a
// copied link reproduces what they saw. Written with history.replaceState (no
// history entries, no reload); the hash (their place on the page) is kept.
//
// Usage:
//   import { getParam, setParam, scoped } from './state.mjs';
//   const n = getParam('s4', 'n', 64);            // type follows the default: number | boolean | string
//   setParam('s4', 'n', 256);                     // setParam('s4', 'n', null) removes it
//   const st = scoped('s2');                      // what sections receive as ctx.state
//   st.get('causal', false); st.set('causal', true);
//   st.setLater({ n: 64 });                       // the same, written once the control rests (150 ms)
//   st.getMatrix('x', {rows, cols, data}); st.setMatrix('x', m);   // "4x3_1_0_0_…" in the URL
//   st.reset();                                   // drop every key of this section
// Each change dispatches `statechange` on window (the language switch listens).
//
// A URL value is the reader's input: look it up in a table with oneOf / hasOwnKey,
// never with `in` (`?s7.dtype=toString` passes `'toString' in DTYPES`).
//   oneOf(DTYPES, st.get('dtype', 'fp16'), 'fp16')   // an own key of the table, else the default
//   oneOf(['off', 'sqrt'], st.get('scale', 'off'), 'off')   // or an element of an array
//   intIn(st.get('n', 8), 2, 128, 8)                 // a whole number in [2, 128], else the default

/** True when key is an own (not inherited) string key of table. */
export function hasOwnKey(table, key) {
  return typeof key === 'string' && table != null && !Array.isArray(table) && Object.hasOwn(table, key);
}

/** value when it is one of the choices (own keys of an object, or elements of an array), else def. */
export function oneOf(table, value, def) {
  if (Array.isArray(table)) return table.includes(value) ? value : def;
  return hasOwnKey(table, value) ? value : def;
}

/** value when it is a whole number in [lo, hi], else def (a URL's "n=2.5", "n=999", "n=x"). */
export function intIn(value, lo, hi, def) {
  return Number.isInteger(value) && value >= lo && value <= hi ? value : def;
}

function params() {
  return new URLSearchParams(location.search);
}

function write(sp) {
  const q = sp.toString();
  const url = location.pathname + (q ? '?' + q : '') + location.hash;
  try { history.replaceState(history.state, '', url); } catch { /* file:// or sandbox: state stays in memory */ }
  window.dispatchEvent(new CustomEvent('statechange', { detail: { search: q } }));
}

const name = (section, key) => (section ? `${section}.${key}` : key);

export function getParam(section, key, def) {
  const v = params().get(name(section, key));
  if (v === null) return def;
  if (typeof def === 'number') {
    if (v.trim() === '') return def;   // Number('') is 0: an empty value is no value
    const x = Number(v);
    return Number.isFinite(x) ? x : def;
  }
  if (typeof def === 'boolean') return v === '1' || v === 'true';
  return v;
}

export function setParam(section, key, value) {
  const sp = params();
  const k = name(section, key);
  if (value === null || value === undefined) sp.delete(k);
  else if (typeof value === 'boolean') sp.set(k, value ? '1' : '0');
  else sp.set(k, String(value));
  write(sp);
}

/** Several keys at once (one replaceState). */
export function setParams(section, obj) {
  const sp = params();
  for (const [key, value] of Object.entries(obj)) {
    const k = name(section, key);
    if (value === null || value === undefined) sp.delete(k);
    else if (typeof value === 'boolean') sp.set(k, value ? '1' : '0');
    else sp.set(k, String(value));
  }
  write(sp);
}

export function clearSection(section) {
  const sp = params();
  for (const k of [...sp.keys()]) if (k.startsWith(section + '.')) sp.delete(k);
  write(sp);
}

export function encodeMatrix(m) {
  return `${m.rows}x${m.cols}_` + Array.from(m.data, (x) => String(Math.round(x * 1e6) / 1e6)).join('_');
}

export function decodeMatrix(s) {
  const m = /^(\d{1,4})x(\d{1,4})_(.*)$/.exec(String(s || ''));
  if (!m) return null;
  const rows = +m[1], cols = +m[2];
  const vals = m[3].split('_').map(Number);
  if (rows < 1 || cols < 1 || vals.length !== rows * cols) return null;
  // Finite as a double is not enough: 3.5e38 becomes Infinity in float32.
  const data = Float32Array.from(vals);
  return data.every(Number.isFinite) ? { rows, cols, data } : null;
}

export function getMatrix(section, key, def) {
  const v = params().get(name(section, key));
  return (v && decodeMatrix(v)) || def;
}

export function setMatrix(section, key, m) {
  setParam(section, key, m ? encodeMatrix(m) : null);
}

/** Query string + hash to carry to the other language edition. */
export function currentPlace() {
  return location.search + location.hash;
}

/** The section-bound view given to sections as ctx.state. */
export function scoped(section) {
  // history.replaceState is slow: a slider's moves are gathered and written
  // once it rests, in one replaceState, the latest value of each key winning.
  let pending = null, timer = null;
  const setLater = (obj) => {
    pending = { ...pending, ...obj };
    clearTimeout(timer);
    timer = setTimeout(() => { const kv = pending; pending = null; setParams(section, kv); }, 150);
  };
  // A direct write wins over a gathered one still waiting for the same key
  // (typing a text schedules pos: null; a click on a position right after sets pos).
  const dropPending = (keys) => {
    if (!pending) return;
    for (const k of keys) delete pending[k];
  };
  return {
    section,
    get: (key, def) => getParam(section, key, def),
    set: (key, value) => { dropPending([key]); setParam(section, key, value); },
    setMany: (obj) => { dropPending(Object.keys(obj)); setParams(section, obj); },
    setLater,
    getMatrix: (key, def) => getMatrix(section, key, def),
    setMatrix: (key, m) => setMatrix(section, key, m),
    reset: () => clearSection(section),
  };
}
