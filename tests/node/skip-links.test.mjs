// Each page's skip link names what it skips to (walkthroughs of 2026-12-05: fa #19, ar #15):
// the practice page's link goes to the exercises, not to "the lesson's text", in both languages.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (rel) => readFileSync(new URL(`../../web/${rel}`, import.meta.url), 'utf8');
const skipKey = (page) => /<a class="skip-link"[^>]*>\{\{t:([\w.]+)\}\}<\/a>/.exec(read(`pages/${page}.html`))?.[1];

test('the lesson and the practice page each have their own skip-link text, in both languages', () => {
  assert.equal(skipKey('lesson'), 'site.skipToContent');
  assert.equal(skipKey('practice'), 'site.skipToPractice');
  for (const lang of ['fa', 'ar']) {
    const site = JSON.parse(read(`text/${lang}/site.json`));
    assert.equal(typeof site['site.skipToPractice'], 'string', lang);
    assert.notEqual(site['site.skipToPractice'], site['site.skipToContent'], lang);
  }
});
