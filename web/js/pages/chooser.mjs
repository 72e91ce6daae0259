// Entry point of index.html (the language chooser): the page itself needs no script;
// this only registers the service worker, so that opening the chooser once is enough
// for the whole site to work offline.
import { registerServiceWorker } from '../sw-register.mjs';

registerServiceWorker();
