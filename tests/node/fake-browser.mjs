// The few browser globals web/js/state.mjs touches (location, history, window
// events), for Node tests. installFakeBrowser() → {setSearch(q), events}.
export function installFakeBrowser() {
  const loc = { pathname: '/fa/index.html', search: '', hash: '' };
  const events = [];
  const target = new EventTarget();
  target.addEventListener('statechange', (e) => events.push(e.detail));
  globalThis.location = loc;
  globalThis.window = target;
  globalThis.history = {
    state: null,
    replaceState(_state, _title, url) {
      const u = new URL(url, 'http://localhost');
      loc.pathname = u.pathname;
      loc.search = u.search;
      loc.hash = u.hash;
    },
  };
  return {
    events,
    setSearch(q) { loc.search = q; },
    get search() { return loc.search; },
  };
}
