// Entry point of index.html (the language chooser): the page itself needs no script;
// this registers the service worker, so that opening the chooser once is enough
// for the whole site to work offline, and shows its digits in Latin when the
// reader chose that (the text itself is written into the page by the build).
import { registerServiceWorker } from '../sw-register.mjs';
import { getSettings } from '../settings.mjs';
import { setText, applyDigits } from '../i18n.mjs';
import { language } from '../languages.mjs';

registerServiceWorker();

try {
  if (getSettings().latinDigits) {
    setText(language(document.documentElement.lang).code, {}, { latinDigits: true });
    applyDigits(document.body);
  }
} catch { /* storage unavailable: the page's own digits */ }
