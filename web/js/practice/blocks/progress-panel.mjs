// The progress panel of the practice page: a summary of what the store holds,
// export to a JSON file (download) and import from a file. An imported file is
// merged with this browser's progress (per record, the newer wins) and every
// block follows at once (they subscribe to the store). A refused file (store.import's
// error codes, or a file that cannot be read) shows why in the page language and
// changes nothing; in every case the file input is emptied, so the same file can
// be chosen again. Store notices themselves are shown at the top of the page by
// pages/practice.mjs.
//
// data-testid hooks: progress-summary, progress-export, progress-import (the file
// input), progress-message (live region, data-kind="ok|bad", data-code = import
// error code), progress-not-saved (shown when storage does not persist).

import { h } from '../../dom.mjs';
import { tx, p, liveRegion, say, button } from './ui.mjs';

export async function mount(root, ctx) {
  const store = ctx.store;
  root.append(p(ctx, 'practice.progress.intro', null, 'block-intro'));
  const summary = h('p', { testid: 'progress-summary' });
  const message = liveRegion('progress-message');
  const notSaved = p(ctx, 'practice.progress.notSaved', null, 'note warn');
  notSaved.dataset.testid = 'progress-not-saved';

  function refresh() {
    const d = store.get();
    const ex = Object.values(d.exercises).filter((e) => e.correct > 0).length;
    const quiz = Object.values(d.quizzes).reduce((s, l) => s + l.length, 0);
    summary.textContent = '';
    summary.append(tx(ctx, 'practice.progress.summary', { cards: Object.keys(d.cards).length, ex, quiz }));
    notSaved.hidden = store.persistent;
  }
  store.subscribe(refresh);

  const exportBtn = button(ctx, 'practice.progress.export', {
    testid: 'progress-export',
    onClick: () => {
      const text = store.export();
      const day = new Date().toISOString().slice(0, 10);
      const file = `attention-progress-${day}.json`;
      const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
      const a = h('a', { href: url, download: file, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      say(message, ctx, 'practice.progress.exported', { file: h('bdi', { dir: 'ltr' }, file) }, 'ok');
    },
  });

  const inputId = 'progress-import-input';
  const fileInput = h('input', { type: 'file', id: inputId, accept: 'application/json,.json', testid: 'progress-import', class: 'file-input visually-hidden', 'aria-describedby': 'progress-import-hint' });
  async function importChosen(f) {
    let text;
    try {
      text = await f.text();
    } catch {
      return { ok: false, error: 'read-failed' };
    }
    // store.import never throws; a subscriber's failure must not cost the message either.
    try {
      return store.import(text);
    } catch (e) {
      console.error(e);
      return { ok: false, error: 'invalid-data' };
    }
  }
  fileInput.addEventListener('change', async () => {
    const f = fileInput.files && fileInput.files[0];
    if (!f) return;
    try {
      const r = await importChosen(f);
      if (r.ok) {
        say(message, ctx, 'practice.progress.imported', null, 'ok');
        delete message.dataset.code;
      } else {
        const code = ctx.has(`practice.import.${r.error}`) ? r.error : 'invalid-data';
        say(message, ctx, `practice.import.${code}`, null, 'bad');
        message.dataset.code = code;
      }
    } finally {
      fileInput.value = '';
    }
  });
  // The native file input is visually hidden (its own text would be in the browser's
  // language); the label, styled as a button, opens it and names it.
  const importBox = h('div', { class: 'import-box' },
    fileInput,
    h('label', { for: inputId, class: 'btn file-label' }, tx(ctx, 'practice.progress.import')),
    h('p', { class: 'note', id: 'progress-import-hint' }, tx(ctx, 'practice.progress.importHint')));

  root.append(summary, notSaved, h('div', { class: 'progress-actions' }, exportBtn, importBox), message);
  refresh();
}
