// Browser shim: the page's scheduler, with ts-fsrs loaded from the copy the
// build places at build/site/vendor/ts-fsrs/index.mjs (this file is served
// from build/site/js/practice/). Node tests do not import this file: they call
// createScheduler(await import('ts-fsrs')) from ./scheduler.mjs directly.

import * as lib from '../../vendor/ts-fsrs/index.mjs';
import { createScheduler } from './scheduler.mjs';

export const scheduler = createScheduler(lib);
