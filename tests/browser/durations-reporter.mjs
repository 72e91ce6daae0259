// A node:test reporter that writes one JSON line per finished test (name, file, duration),
// for run.mjs to print the slowest at the end. Suites are left out: their time is their tests'.
export default async function* durations(source) {
  for await (const ev of source) {
    if (ev.type !== 'test:pass' && ev.type !== 'test:fail') continue;
    const { name, file, details = {} } = ev.data;
    if (details.type === 'suite') continue;
    yield JSON.stringify({ name, file, ms: details.duration_ms, failed: ev.type === 'test:fail' }) + '\n';
  }
}
