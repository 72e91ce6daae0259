// Reader settings: preferred edition (lang) and "show Latin digits". Kept in
// the settings section of the progress store, so they survive reloads when
// storage works and still work for the visit when it does not (the store
// falls back to memory and never throws).
//
// `lang` is the reader's PREFERRED edition (the root language chooser uses it);
// a page still renders in its own language (<html lang>), which is also the
// default when nothing was chosen yet.
//
// Pages: import {getSettings, setSettings, subscribeSettings} from './settings.mjs'.
// Tests: createSettings(store) with a store from openProgress({storage: fake}).

import { getProgressStore } from './progress.mjs';
import { recordSettings } from './records.mjs';
import { isLanguage, language } from '../i18n/languages.mjs';

const pageLang = () => language(globalThis.document?.documentElement?.lang).code;

export function createSettings(store) {
  function getSettings() {
    const s = store.get().settings;
    return { lang: s.lang ?? pageLang(), latinDigits: s.latinDigits };
  }
  /** Apply the valid fields of patch; unknown or invalid fields are ignored. → the new settings */
  function setSettings(patch = {}) {
    recordSettings(store, {
      lang: isLanguage(patch.lang) ? patch.lang : undefined,
      latinDigits: typeof patch.latinDigits === 'boolean' ? patch.latinDigits : undefined,
    });
    return getSettings();
  }
  /** fn(settings) on every change of the store; returns an unsubscribe function. */
  function subscribeSettings(fn) {
    return store.subscribe(() => fn(getSettings()));
  }
  return { getSettings, setSettings, subscribeSettings };
}

// Page-wide functions bound to the shared store, opened lazily on first call so
// importing this module has no side effect.
let bound = null;
const page = () => (bound ??= createSettings(getProgressStore()));
export const getSettings = () => page().getSettings();
export const setSettings = (patch) => page().setSettings(patch);
export const subscribeSettings = (fn) => page().subscribeSettings(fn);
