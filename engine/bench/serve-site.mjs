// The site served by build-scripts/serve.mjs on a free port, for the measuring scripts that
// drive Chromium over it (SITE_DIR in the environment chooses another copy of the site).
// Resolves to { base, stop } once the server prints its address.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function serveSite() {
  const server = spawn(process.execPath, [path.join(REPO, 'build-scripts/serve.mjs')], {
    env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => { out += d; const m = /at (http:\/\/\S+?)\/? /.exec(out); if (m) resolve(m[1]); });
    server.on('exit', () => reject(new Error(`server exited: ${out}`)));
  });
  return { base, stop: () => server.kill() };
}
