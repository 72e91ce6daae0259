// A localStorage stand-in for the store's tests. quota: max total characters
// (keys + values); failAfter: setItem calls that succeed before every later one
// throws a QuotaExceededError; throwOnGet: getItem throws as a blocked storage does.
export class FakeStorage {
  constructor({ quota = Infinity, throwOnGet = false, failAfter = Infinity } = {}) {
    this.map = new Map();
    this.quota = quota;
    this.throwOnGet = throwOnGet;
    this.failAfter = failAfter;
    this.sets = 0;
  }
  get size() {
    let n = 0;
    for (const [k, v] of this.map) n += k.length + v.length;
    return n;
  }
  getItem(k) {
    if (this.throwOnGet) throw Object.assign(new Error('denied'), { name: 'SecurityError' });
    return this.map.has(k) ? this.map.get(k) : null;
  }
  setItem(k, v) {
    if (++this.sets > this.failAfter || this.size - (this.map.get(k)?.length ?? 0) + String(v).length + k.length > this.quota) {
      throw Object.assign(new Error('quota'), { name: 'QuotaExceededError', code: 22 });
    }
    this.map.set(k, String(v));
  }
  removeItem(k) {
    this.map.delete(k);
  }
}
