// Section "refs": the sources, numbered as the in-text citations are (references.mjs).
// Each entry: the full citation in its original English (an LTR block, lang="en"),
// a link to it, and one line in the page language saying what the lesson takes from
// it, with links back to the sections that use it.
//
// data-testid hooks: refs-list; each entry <li id="ref-<id>" data-testid="ref-<id>">.

import { h, el } from '../dom.mjs';
import { REFS, SECTION_REFS } from '../lesson/references.mjs';

export async function mount(root, ctx) {
  root.append(el('p', null, ctx.tNode('refs.intro')));
  const list = h('ol', { class: 'refs-list', testid: 'refs-list' });
  for (const r of REFS) {
    const li = h('li', { id: `ref-${r.id}`, testid: `ref-${r.id}`, tabindex: '-1' });
    if (r.local) {
      li.append(el('p', 'ref-cite', ctx.tNode(`refs.${r.id}.cite`)));
    } else {
      const c = h('p', { class: 'ref-cite', dir: 'ltr', lang: 'en' },
        `${r.authors}${r.year ? ` (${r.year})` : ''}. `, h('cite', {}, r.title), `. ${r.venue}. `,
        h('a', { href: r.url, rel: 'noopener' }, r.url.replace(/^https:\/\//, '')));
      li.append(c);
    }
    const use = el('p', 'ref-use', ctx.tNode(`refs.${r.id}.use`));
    const where = Object.entries(SECTION_REFS).filter(([, ids]) => ids.includes(r.id)).map(([s]) => s);
    if (where.length) {
      use.append(' ', ctx.tNode('refs.usedIn'), ' ');
      where.forEach((s, i) => {
        if (i) use.append('، ');
        const head = document.getElementById(`${s}-h`);
        use.append(h('a', { href: `#${s}` }, head ? head.textContent.trim() : s));
      });
    }
    li.append(use);
    list.append(li);
  }
  root.append(list);
}
