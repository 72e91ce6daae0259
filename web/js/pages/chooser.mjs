// Entry point of index.html (the language chooser): the page itself needs no script;
// this registers the service worker, so that opening the chooser once is enough
// for the whole site to work offline, and shows its digits in Latin when the
// reader chose that (the text itself is written into the page by the build).
// It also remembers the edition the reader chose (settings `lang`, in the progress store):
// on the next visit that edition comes first, with a line saying it is the one read last
// time (data-testid remembered-<code>), and holds the focus, so one tap or Enter opens it.
// With no choice yet, the edition the browser's language list asks for comes first.
// This script runs after the first paint (boot.mjs): html[data-chooser=ready] says it has run.
// A click before that is still remembered: the lesson page records its own edition on load.
import { registerServiceWorker } from './sw-register.mjs';
import { getSettings, setSettings } from '../store/settings.mjs';
import { getProgressStore } from '../store/progress.mjs';
import { setText, applyDigits } from '../i18n/i18n.mjs';
import { language, isLanguage, preferredLanguage } from '../i18n/languages.mjs';

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

const itemOf = (code) => document.querySelector(`[data-testid="choose-${code}"]`)?.closest('li');
let remembered = false;
try {
  // the stored choice itself (getSettings falls back to this page's language)
  const chosen = getProgressStore().get().settings.lang;
  const item = isLanguage(chosen) && itemOf(chosen);
  if (item) {
    remembered = true;
    item.classList.add('chooser-remembered');
    item.parentElement.prepend(item);
    const note = item.querySelector('.chooser-remembered-note');
    if (note) note.hidden = false;
    item.querySelector('a').focus({ preventScroll: true });
  }
} catch { /* storage unavailable: the chooser as built */ }
// No choice yet: the edition the browser's languages ask for comes first, and the page
// itself takes that language (its <html lang> is the first edition's, from the build).
if (!remembered) {
  const wanted = preferredLanguage(navigator.languages || [navigator.language]);
  const item = wanted && itemOf(wanted);
  if (item) {
    item.parentElement.prepend(item);
    document.documentElement.lang = wanted;
    document.documentElement.dir = language(wanted).dir;
  }
}
document.documentElement.dataset.chooser = 'ready';
