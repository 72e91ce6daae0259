// A heatmap's download buttons: the canvas as PNG, the matrix as CSV.
//
//   exportTools(ctx, opts, {testid, canvas, view}) → {el, toCsv()}
//     buttons `${testid}-png`, `${testid}-csv`; file stem opts.exportName (else testid)
//   heatmapCsv(m, rowLabels, colLabels) → the CSV text

// CSV is data for other programs: Latin digits, '.' decimals, full float precision.
export function heatmapCsv(m, rowLabels, colLabels) {
  const q = (s) => `"${String(s).replace(/"/g, '""')}"`;
  const rn = (i) => (rowLabels && rowLabels[i] != null ? rowLabels[i] : i + 1);
  const cn = (j) => (colLabels && colLabels[j] != null ? colLabels[j] : j + 1);
  const lines = [['', ...Array.from({ length: m.cols }, (_, j) => cn(j))].map(q).join(',')];
  for (let i = 0; i < m.rows; i++) {
    const row = [q(rn(i))];
    for (let j = 0; j < m.cols; j++) {
      const v = m.data[i * m.cols + j];
      row.push(v === -Infinity ? '-inf' : v === Infinity ? 'inf' : String(v));
    }
    lines.push(row.join(','));
  }
  return '\uFEFF' + lines.join('\r\n') + '\r\n';
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url; a.download = name;
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 2000);
}

export function exportTools(ctx, opts, { testid, canvas, view }) {
  const tools = document.createElement('div');
  tools.className = 'heatmap-tools';
  const pngBtn = document.createElement('button');
  pngBtn.type = 'button'; pngBtn.className = 'btn btn-small';
  pngBtn.dataset.testid = `${testid}-png`;
  pngBtn.append(ctx.tNode('site.exportPng'));
  const csvBtn = document.createElement('button');
  csvBtn.type = 'button'; csvBtn.className = 'btn btn-small';
  csvBtn.dataset.testid = `${testid}-csv`;
  csvBtn.append(ctx.tNode('site.exportCsv'));
  tools.append(pngBtn, csvBtn);

  const toCsv = () => heatmapCsv(view.m, view.rowLabels, view.colLabels);
  const stem = () => opts.exportName || testid;
  pngBtn.addEventListener('click', () => { if (view.m) canvas.toBlob((b) => b && download(b, `${stem()}.png`), 'image/png'); });
  csvBtn.addEventListener('click', () => { if (view.m) download(new Blob([toCsv()], { type: 'text/csv;charset=utf-8' }), `${stem()}.csv`); });

  return { el: tools, toCsv };
}
