// The dev server: build/site on 127.0.0.1 (port $PORT, default 8080; 0 = a free port, printed),
// with the site's CSP as a header, compressed and with validators as a real host would
// (static-server.mjs says how). SITE_DIR=/some/dir serves another copy of the site
// (tests/browser/offline.test.mjs). The first line printed, "Serving <dir> at <url>/",
// is what scripts wait for (static-server.mjs spawnServe).
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { CSP } from './site-policy.mjs';
import { startStaticServer } from './static-server.mjs';

const root = process.env.SITE_DIR ? resolve(process.env.SITE_DIR) : fileURLToPath(new URL('../build/site/', import.meta.url));
const { url } = await startStaticServer({ root, port: Number(process.env.PORT ?? 8080), headers: { 'Content-Security-Policy': CSP } });
console.log(`Serving ${process.env.SITE_DIR ? root : 'build/site'} at ${url}/ (Ctrl+C to stop)`);
