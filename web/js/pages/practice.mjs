// Entry point of fa/practice.html and ar/practice.html: settings, prose, the
// engine worker, the progress store (notices in the page language), then the
// five practice blocks and the progress panel, each mounted in its own
// try/catch so one failing block leaves the others working.
//
// Test hooks (on <html>): data-engine="loading|ready|error", data-practice="ready"
// once every block has mounted or failed; each block <section> gets
// data-state="loading|ready|error". Store notices: [data-testid=progress-notice]
// with data-code="<notice code>". window.__practice = {engine, store, ctx}.

import { getSettings, setSettings } from '../settings.mjs';
import { formatBytes, formatPercent, localizeDigits, parseNumber } from '../numerals.mjs';
import { loadText, t, tNode, fmt, has, renderMath, renderMarkup } from '../i18n.mjs';
import { createEngineClient } from '../engine-client.mjs';
import { getProgressStore } from '../store/progress.mjs';

const BLOCKS = [
  ['try', 'try-without-code.mjs'],
  ['myth', 'myth-fact.mjs'],
  ['exercises', 'try-yourself.mjs'],
  ['cards', 'flashcards.mjs'],
  ['quiz', 'quiz.mjs'],
  ['progress', 'progress-panel.mjs'],
];

const FALLBACK = {
  fa: 'متن صفحه بارگیری نشد. صفحه را دوباره بارگیری کنید.',
  ar: 'تعذّر تحميل نص الصفحة. أعد تحميل الصفحة.',
};

const html = document.documentElement;
const lang = html.lang === 'ar' ? 'ar' : 'fa';
const other = lang === 'fa' ? 'ar' : 'fa';

function readSettings() {
  try { return getSettings(); } catch { return { lang, latinDigits: false }; }
}

function errorNode(err, extraKey) {
  const p = document.createElement('p');
  p.className = 'error-message';
  p.setAttribute('role', 'alert');
  const code = err && err.code;
  const key = extraKey || (has(`err.engine.${code}`) ? `err.engine.${code}` : 'practice.engine.callFailed');
  p.append(tNode(key));
  if (err && err.message && !extraKey) {
    const detail = document.createElement('bdi');
    detail.dir = 'ltr';
    detail.className = 'error-detail';
    detail.textContent = ` (${err.message})`;
    p.append(detail);
  }
  return p;
}

function setupHeader(settings) {
  const cb = document.getElementById('latin-digits');
  if (cb) {
    cb.checked = !!settings.latinDigits;
    cb.addEventListener('change', () => {
      try { setSettings({ latinDigits: cb.checked }); } catch { /* store unavailable */ }
      location.reload();
    });
  }
  const a = document.getElementById('lang-switch');
  if (a) {
    const update = () => { a.href = `../${other}/practice.html${location.hash}`; };
    update();
    a.addEventListener('click', () => {
      update();
      try { setSettings({ lang: other }); } catch { /* ignore */ }
    });
    a.addEventListener('focus', update);
    a.addEventListener('mouseenter', update);
  }
}

function makeCtx(settings, engine, store) {
  const latinDigits = !!settings.latinDigits;
  return {
    lang, dir: 'rtl', latinDigits, engine, store,
    t, tNode, fmt, has, renderMath, renderMarkup, parseNumber,
    localize: (s) => localizeDigits(s, { lang, latinDigits }),
    pct: (x, opts = {}) => formatPercent(x, { lang, latinDigits, ...opts }),
    /** Bytes in a fixed or automatic unit, with the unit word from practice.unit.*. */
    fmtBytes: (bytes, opts = {}) => {
      const b = formatBytes(bytes, { lang, latinDigits, ...opts });
      return t(`practice.unit.${b.unit}`, { n: b.number });
    },
    errorNode,
    showError: (el, err) => { el.textContent = ''; el.append(errorNode(err)); },
  };
}

// ---------------------------------------------------------------- store notices
const shownNotices = new Set();
function showNotices(store) {
  const box = document.getElementById('progress-notices');
  if (!box) return;
  store.notices.forEach((n, idx) => {
    if (shownNotices.has(idx)) return;
    shownNotices.add(idx);
    const key = `practice.notice.${n.code}`;
    const sections = (n.sections || []).map((s) => (has(`practice.notice.section.${s}`) ? t(`practice.notice.section.${s}`) : s));
    const div = document.createElement('div');
    div.className = 'notice';
    div.dataset.testid = 'progress-notice';
    div.dataset.code = n.code;
    div.setAttribute('role', 'status');
    const p = document.createElement('p');
    p.append(tNode(has(key) ? key : 'practice.notice.storage-unavailable', { sections: sections.join(lang === 'fa' ? '، ' : '، ') }));
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

async function mountBlock(id, file, ctx) {
  const root = document.getElementById(id);
  if (!root) return;
  root.dataset.state = 'loading';
  try {
    const mod = await import(`../practice/blocks/${file}`);
    for (const el of root.querySelectorAll('.section-loading')) el.remove();
    await mod.mount(root, ctx);
    root.dataset.state = 'ready';
  } catch (err) {
    console.error(`practice block ${id} failed`, err);
    for (const el of root.querySelectorAll('.section-loading')) el.remove();
    root.append(errorNode(err, 'practice.blockFailed'));
    root.dataset.state = 'error';
  }
}

async function main() {
  html.dataset.engine = 'loading';
  const settings = readSettings();
  if (settings.latinDigits) html.classList.add('latin-digits');
  try {
    await loadText(lang, { latinDigits: !!settings.latinDigits });
  } catch (err) {
    console.error(err);
    const status = document.getElementById('engine-status');
    if (status) { status.hidden = false; status.textContent = FALLBACK[lang]; }
    html.dataset.practice = 'error';
    return;
  }
  setupHeader(settings);

  const store = getProgressStore();
  showNotices(store);
  store.subscribe(() => showNotices(store));

  const engine = createEngineClient();
  const status = document.getElementById('engine-status');
  engine.ready.then(() => {
    html.dataset.engine = 'ready';
  }, (err) => {
    console.error('engine failed to load', err);
    html.dataset.engine = 'error';
    if (status) {
      status.hidden = false;
      status.textContent = '';
      status.append(errorNode(err, 'practice.engine.error'));
    }
  });

  const ctx = makeCtx(settings, engine, store);
  window.__practice = { engine, store, ctx };
  await Promise.allSettled(BLOCKS.map(([id, file]) => mountBlock(id, file, ctx)));
  html.dataset.practice = 'ready';
  if (location.hash) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) target.scrollIntoView();
  }
}

main();
