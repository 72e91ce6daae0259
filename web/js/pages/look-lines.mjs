// "What to look at": one line above each large heatmap, chart and long run of the lesson,
// so a reader on a phone, who cannot see the map and the paragraph about it at once, knows
// what to watch before scrolling through the figure. The line for the figure whose
// data-testid is X is the text key `path.look.X`; a figure without that key gets none, so a
// new one needs only its key. A run's line goes above its row of buttons.
// Idempotent (a section built again after an engine crash gets one line per figure).
// Hooks: data-testid look-<X> on the line.

export function addLookLines(section, { has, tNode }) {
  for (const fig of section.querySelectorAll('[data-testid]')) {
    const id = fig.dataset.testid;
    const key = `path.look.${id}`;
    if (!has(key)) continue;
    const at = fig.tagName === 'BUTTON' ? (fig.closest('.run-row') || fig) : fig;
    const prev = at.previousElementSibling;
    if (prev && prev.dataset.testid === `look-${id}`) continue;
    const line = document.createElement('p');
    line.className = 'look';
    line.dataset.testid = `look-${id}`;
    line.append(tNode(key));
    at.before(line);
  }
}
