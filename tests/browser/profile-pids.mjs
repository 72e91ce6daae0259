// The processes started with a Chromium profile under `dir`: found by their --user-data-dir,
// never by name (run.mjs stops what a crashed test file left; helpers' closeProfile a browser
// that does not close).
import { readdirSync, readFileSync } from 'node:fs';

export function profilePids(dir) {
  const pids = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(`--user-data-dir=${dir}`)) pids.push(Number(d));
    } catch { /* exited */ }
  }
  return pids;
}
