// Fills a cache of engine results in the background so that a slider move to a
// filled position redraws within its input event (the lesson's s3 and s4 sliders,
// the practice e1 panel). One piece at a time, and only while nothing is being
// computed in the foreground, so the learner's own request never waits behind it.
//
// Usage:
//   const fill = backgroundFill(async () => { … compute one missing piece …; return true; });
//   //   step() returns false when nothing is missing; its errors are ignored (the
//   //   caller shows engine errors when it computes the same thing in the foreground)
//   fill.schedule();                             // after a render: starts 150 ms later
//   const r = await fill.foreground(() => compute(p));   // the fill pauses meanwhile
//   nearestFirst([4, 8, 16], 8)                  // → [8, 4, 16]: the order to fill in

export function backgroundFill(step, { delayMs = 150 } = {}) {
  let foreground = 0;
  let running = false;
  let timer = null;
  async function run() {
    if (running) return;
    running = true;
    try {
      while (!foreground && await step()) { /* one piece per turn */ }
    } catch { /* reported by the foreground computation of the same piece */ } finally {
      running = false;
    }
  }
  return {
    schedule() {
      clearTimeout(timer);
      timer = setTimeout(run, delayMs);
    },
    async foreground(compute) {
      foreground++;
      try {
        return await compute();
      } finally {
        foreground--;
      }
    },
  };
}

/** values ordered by their distance (in positions) from `current`, nearest first. */
export function nearestFirst(values, current) {
  const at = values.indexOf(current);
  return values.map((v, i) => [Math.abs(i - at), v]).sort((a, b) => a[0] - b[0]).map(([, v]) => v);
}
