// Every chart drawn by web/js/widgets/chart.mjs (sections 4, 7, 12 …) on a phone (mobile
// emulation, touch, 360 and 390 px wide), both editions: each label (ticks, axis titles,
// guide labels) lies whole inside its SVG (section 7's last x label was cut to «۱۳۱,۰۱» at
// 360 px), x tick labels do not overlap, and the page is no wider than the device.
import test from 'node:test';
import assert from 'node:assert/strict';
import { waitLesson } from './lesson-helpers.mjs';
import { newPage, url, toLatinDigits } from './helpers.mjs';
import { launchPhone, overflowPx, PHONE_WIDTHS } from './phone.mjs';

const T = { timeout: 180000 };

for (const width of PHONE_WIDTHS) {
  for (const lang of ['fa', 'ar']) {
    test(`${lang} ${width} px phone: every chart label is whole; the page fits the device`, T, async () => {
      const b = await launchPhone({ width });
      try {
        const page = await newPage(b);
        await page.goto(url(`/${lang}/index.html`), { waitUntil: 'load' });
        await waitLesson(page, 60000);   // a phone-sized first load on a busy 2-core machine
        await page.evaluate(() => document.fonts.ready);
        // Section 4's charts sit in folds whose work starts when they are opened: open them all.
        await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
        // the charts draw when their data arrives: wait until each has points
        // (a chart that waits for a run the reader starts, like chapter 11's long run, stays
        // hidden until then: only the charts on screen are checked)
        await page.waitForFunction(() => {
          const charts = [...document.querySelectorAll('figure.chart')].filter((f) => f.getClientRects().length > 0);
          return charts.length >= 4 && charts.every((f) => Number(f.dataset.points) > 0);
        }, null, { timeout: 60000 });
        const report = await page.evaluate(() => [...document.querySelectorAll('figure.chart')].filter((f) => f.getClientRects().length > 0).map((fig) => {
          const svg = fig.querySelector('svg.chart-svg');
          const box = svg.getBoundingClientRect();
          const texts = [...svg.querySelectorAll('text')].map((t) => {
            const r = t.getBoundingClientRect();
            return { text: t.textContent, cls: t.getAttribute('class'), left: r.left, right: r.right, top: r.top, bottom: r.bottom };
          });
          return { id: fig.dataset.testid, box: { left: box.left, right: box.right, top: box.top, bottom: box.bottom }, texts };
        }));
        assert.ok(report.length >= 4, `charts found: ${report.map((c) => c.id)}`);
        for (const c of report) {
          for (const t of c.texts) {
            const inside = t.left >= c.box.left - 0.5 && t.right <= c.box.right + 0.5 && t.top >= c.box.top - 0.5 && t.bottom <= c.box.bottom + 0.5;
            assert.ok(inside, `${c.id}: label «${t.text}» (${t.cls}) ${Math.round(t.left)}–${Math.round(t.right)} sticks out of the chart ${Math.round(c.box.left)}–${Math.round(c.box.right)}`);
          }
          const xs = c.texts.filter((t) => /chart-tick-x/.test(t.cls)).sort((a, b) => a.left - b.left);
          for (let i = 1; i < xs.length; i++) {
            assert.ok(xs[i].left >= xs[i - 1].right - 0.5, `${c.id}: x labels «${xs[i - 1].text}» and «${xs[i].text}» overlap`);
          }
          // the chart itself fits the screen
          assert.ok(c.box.left >= -0.5 && c.box.right <= width + 0.5, `${c.id} is ${Math.round(c.box.left)}–${Math.round(c.box.right)} on a ${width} px screen`);
        }
        // section 7's chart ends on n = 131,072, the length its text talks about: that label stays
        const s7 = report.find((c) => c.id === 's7-lin-chart');
        const lastX = s7.texts.filter((t) => /chart-tick-x/.test(t.cls)).sort((a, b) => a.left - b.left).pop();
        assert.equal(toLatinDigits(lastX.text).replace(/[^0-9]/g, ''), '131072', `s7's last x label: «${lastX.text}»`);
        assert.ok(await overflowPx(page, width) <= 0, `the page is wider than ${width} px: ${await overflowPx(page, width)}`);
        await page.close();
      } finally {
        await b.close();
      }
    });
  }
}
