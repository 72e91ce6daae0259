// Entry point of index.html (the language chooser): the page itself needs no script;
// this registers the service worker, so that opening the chooser once is enough
// for the whole site to work offline, and shows its digits in Latin when the
// reader chose that (the text itself is written into the page by the build).
// It also remembers the edition the reader chose (settings `lang`, in the progress store):
// on the next visit that edition comes first, with a line saying it is the one read last
// time (data-testid remembered-<code>), and holds the focus, so one tap or Enter opens it.
// This script runs after the first paint (boot.mjs): html[data-chooser=ready] says it has run.
// A click before that is still remembered: the lesson page records its own edition on load.
import { registerServiceWorker } from '../sw-register.mjs';
import { getSettings, setSettings } from '../settings.mjs';
import { getProgressStore } from '../store/progress.mjs';
import { setText, applyDigits } from '../i18n.mjs';
import { language, isLanguage } from '../languages.mjs';

registerServiceWorker();

try {
  if (getSettings().latinDigits) {
    setText(language(document.documentElement.lang).code, {}, { latinDigits: true });
    applyDigits(document.body);
  }
} catch { /* storage unavailable: the page's own digits */ }

for (const a of document.querySelectorAll('[data-testid^="choose-"]')) {
  a.addEventListener('click', () => {
    try { setSettings({ lang: a.getAttribute('hreflang') }); } catch { /* this visit only */ }
  });
}

try {
  // the stored choice itself (getSettings falls back to this page's language)
  const chosen = getProgressStore().get().settings.lang;
  const link = isLanguage(chosen) && document.querySelector(`[data-testid="choose-${chosen}"]`);
  const item = link && link.closest('li');
  if (item) {
    item.classList.add('chooser-remembered');
    item.parentElement.prepend(item);
    const note = item.querySelector('.chooser-remembered-note');
    if (note) note.hidden = false;
    link.focus({ preventScroll: true });
  }
} catch { /* storage unavailable: the chooser as built */ }
document.documentElement.dataset.chooser = 'ready';
