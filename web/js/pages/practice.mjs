// Entry point of fa/practice.html and ar/practice.html: settings, prose, the
// engine worker, the progress store (notices in the page language), then the
// five practice blocks and the progress panel, each mounted in its own
// try/catch so one failing block leaves the others working, as the reader nears it
// (pages/lazy-mount.mjs, as the lesson's sections: the first screen and the #hash's block at
// once, the others when scrolled near).
//
// Test hooks (on <html>): data-engine="loading|ready|error", data-first-screen="ready" once
// the blocks mounted on load have, data-practice="ready" once every block has mounted or
// failed (tests call window.__practice.mountAll() first); each block <section> gets
// data-state="pending|loading|ready|error". Store notices: [data-testid=progress-notice]
// with data-code="<notice code>". window.__practice = {engine, store, ctx, mountAll()}.

import { t, tNode, has } from '../i18n/i18n.mjs';
import { language } from '../i18n/languages.mjs';
import { getProgressStore, noticeKey } from '../store/progress.mjs';
import { lang, html, loadPage, startEngine, baseCtx, makeErrorNode, mountPart, scrollToHash } from './page-common.mjs';
import { lazyMount, partsForHash } from './lazy-mount.mjs';

const BLOCKS = [
  ['try', 'try-without-code.mjs'],
  ['myth', 'myth-fact.mjs'],
  ['exercises', 'try-yourself.mjs'],
  ['cards', 'flashcards.mjs'],
  ['quiz', 'quiz.mjs'],
  ['progress', 'progress-panel.mjs'],
];

const errorNode = makeErrorNode('practice.engine.callFailed');

// ---------------------------------------------------------------- store notices
const shownNotices = new Set();
function showNotices(store) {
  const box = document.getElementById('progress-notices');
  if (!box) return;
  store.notices.forEach((n, idx) => {
    if (shownNotices.has(idx)) return;
    shownNotices.add(idx);
    const key = noticeKey(n);
    const sections = (n.sections || []).map((s) => (has(`practice.notice.section.${s}`) ? t(`practice.notice.section.${s}`) : s));
    const div = document.createElement('div');
    div.className = 'notice';
    div.dataset.testid = 'progress-notice';
    div.dataset.code = n.code;
    div.setAttribute('role', 'status');
    const p = document.createElement('p');
    p.append(tNode(has(key) ? key : 'practice.notice.storage-unavailable', { sections: sections.join(language(lang).listSeparator) }));
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'btn btn-small';
    close.dataset.testid = 'progress-notice-dismiss';
    close.append(tNode('practice.progress.dismiss'));
    close.addEventListener('click', () => div.remove());
    div.append(p, close);
    box.append(div);
  });
}

async function main() {
  const page = await loadPage({
    readyKey: 'practice',
    href: (a) => `../${a.dataset.lang}/practice.html${location.hash}`,
  });
  if (!page) return;

  const store = getProgressStore();
  showNotices(store);
  store.subscribe(() => showNotices(store));

  const engine = startEngine(errorNode, 'practice.engine.error');

  // one ctx for every block; ctx.fmtBytes takes its unit words from practice.unit.*
  const ctx = Object.assign(baseCtx(page.settings, { unitKey: 'practice.unit', errorNode }), { engine, store });
  const ids = BLOCKS.map(([id]) => id);
  const lazy = lazyMount({
    ids,
    mount: (id) => mountPart(id, {
      load: () => import(`../practice/blocks/${BLOCKS.find(([b]) => b === id)[1]}`),
      ctx: () => ctx,
      errorNode, failKey: 'practice.blockFailed', what: 'practice block',
    }),
    urgent: partsForHash(ids),
    followHash: scrollToHash,
  });
  window.__practice = { engine, store, ctx, mountAll: lazy.mountAll };
  await lazy.firstScreen;
  html.dataset.firstScreen = 'ready';
  scrollToHash();
  await lazy.all;
  html.dataset.practice = 'ready';
}

main();
