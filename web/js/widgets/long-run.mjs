// One long run at a time behind a Run and a Cancel button (chapter 8's run at scale, chapter
// 11's windowed series). While it runs, Run and the inputs that shape it are locked and Cancel
// is live; Cancel aborts the run's signal. The outcome is told apart in one place: the engine's
// `Cancelled` error is the reader's own stop, anything else is a failure the section shows.
//
// Usage:
//   longRun({ runBtn, cancelBtn, inputs: [nCtl.input],
//     start: async (signal) => { … },      // the run; pass `signal` to the engine calls
//     cancelled: (err) => { … }, failed: (err) => { … },
//     always: () => { pool.terminate(); }   // after either outcome or success
//   });

export function longRun({ runBtn, cancelBtn, inputs = [], start, cancelled, failed, always }) {
  let ac = null;   // the AbortController of the run in progress; null when idle
  const lock = (on) => {
    runBtn.disabled = on;
    cancelBtn.disabled = !on;
    for (const input of inputs) input.disabled = on;
  };
  async function run() {
    if (ac) return;
    ac = new AbortController();
    lock(true);
    try {
      await start(ac.signal);
    } catch (err) {
      if (err && err.code === 'Cancelled') cancelled(err);
      else failed(err);
    } finally {
      try {
        if (always) always();
      } finally {
        ac = null;
        lock(false);
      }
    }
  }
  runBtn.addEventListener('click', run);
  cancelBtn.addEventListener('click', () => { if (ac) ac.abort(); });
  return { run, get running() { return ac !== null; } };
}
