// A fold: a native <details> whose open state lives in the URL like every other
// control (`<section>.fold.<name>=1`), so a copied link reopens what the reader
// had open. The <summary> is the keyboard handle (Tab reaches it, Enter/Space
// toggle it: the browser's own behaviour), and the first line inside says why the
// fold is there, so a reader can decide to skip it.
//
// Usage:
//   import { fold } from '../widgets/fold.mjs';
//   const f = fold(ctx, { name: 'tables', summary: 's4.fold.tables', why: 's4.fold.tablesWhy',
//                         testid: 's4-fold-tables', onOpen: () => startWork() });
//   f.body.append(...);  root.append(f.el);
//   f.open;  f.open = true;   // (setting it writes the URL too, through the toggle event)
// `summary` and `why` are text keys (or Nodes). onOpen runs on the first opening, from the
// 'toggle' event (a task queued after the change, also when the URL opened the fold), so
// never inside fold() itself: work that only the fold shows can wait for it.
// data-testid: `<testid>` on the <details>, `<testid>-summary` on the <summary>.
// `key` (optional) replaces the URL key `fold.<name>`: s8's folds keep the `more.<id>`
// keys their published links already carry.

import { h, nodeOf } from '../dom.mjs';

export function fold(ctx, { name, summary, why, testid, onOpen, cls, key = `fold.${name}` }) {
  const sum = h('summary', { testid: testid ? `${testid}-summary` : null }, nodeOf(ctx, summary));
  const body = h('div', { class: 'fold-body' });
  if (why) body.append(h('p', { class: 'fold-why' }, nodeOf(ctx, why)));
  const el = h('details', { class: cls ? `fold ${cls}` : 'fold', testid, dataset: { fold: name } }, sum, body);

  let opened = false;
  const firstOpen = () => { if (!opened && el.open) { opened = true; if (onOpen) onOpen(); } };
  el.open = ctx.state.get(key, false) === true;
  // 'toggle' is queued after the change (also for the initial open above), and does not bubble:
  // a heatmap's own <details> inside the fold never reaches this listener.
  el.addEventListener('toggle', () => {
    const wanted = el.open ? true : null;           // a closed fold leaves nothing in the URL
    if (ctx.state.get(key, false) !== el.open) ctx.state.set(key, wanted);
    firstOpen();
  });

  return {
    el, body, summary: sum,
    get open() { return el.open; },
    set open(v) { el.open = !!v; },
  };
}
