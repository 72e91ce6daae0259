// The lesson's sections, in page order: the one list the page is built from.
// build-scripts/make-site.mjs writes the table of contents and the <section> slots of
// web/pages/lesson.html from it ({{lessonToc}}, {{lessonSections}}), pages/lesson.mjs mounts
// each section's module from it, and tests/browser/lesson-helpers.mjs reads the ids.
// Plain data, no imports: Node (the build, the tests) and the browser both load this file.
//
// An entry:
//   id          the <section id>, the URL prefix of its state (`s4.dk=…`), its text keys'
//               prefix and its test ids; never renamed (links and tests use it)
//   module      its file in web/js/sections/, with `export function mount(root, ctx)`
//   title       the text key of its <h2> and contents entry (in every web/text/<lang>/)
//   citesInline true when its own text cites the sources (else the page adds a "sources for
//               this section" line from references.mjs SECTION_REFS)
//   unnumbered  true for the way in and the way out (the big idea, the summary, the sources):
//               the numbered sections are the lesson's chapters, 1…13 in the contents, the
//               where-bar and the prose («بخش ۶», «القسم ٦»); these three carry no number
//   core        true for the lesson's core path (the seeds' ideas: chapters 1–6 and the summary):
//               the map in the big idea marks it, with a reading time per chapter; the other
//               chapters are marked optional
// Adding a section: web/README.md, "Adding a section".

export const SECTIONS = Object.freeze([
  { id: 'intro', module: 'intro.mjs', title: 'intro.title', unnumbered: true },
  { id: 's1', module: 's1-qkv.mjs', title: 's1.title', core: true },
  { id: 's2', module: 's2-worked-example.mjs', title: 's2.title', core: true },
  { id: 's3', module: 's3-two-roads.mjs', title: 's3.title', core: true },
  { id: 's4', module: 's4-scaling.mjs', title: 's4.title', citesInline: true, core: true },
  { id: 's5', module: 's5-max-subtraction.mjs', title: 's5.title', core: true },
  { id: 's6', module: 's6-causal.mjs', title: 's6.title', core: true },
  { id: 's7', module: 's7-quadratic-cost.mjs', title: 's7.title' },
  { id: 's8', module: 's8-chunked.mjs', title: 's8.title' },
  { id: 's9', module: 's9-code.mjs', title: 's9.title', citesInline: true },
  // Chapters 10–12, beyond the seeds (issue 15): attention as real models run it.
  { id: 'heads', module: 'heads.mjs', title: 'heads.title', citesInline: true },
  { id: 'window', module: 'window.mjs', title: 'window.title', citesInline: true },
  { id: 'kvcache', module: 'kvcache.mjs', title: 'kvcache.title', citesInline: true },
  // Chapter 13 (issue 24): a character model trained on the reader's language.
  { id: 'model', module: 'model.mjs', title: 'model.title', citesInline: true },
  // Chapter 14 (issue 24): watching attention learn, training in the tab and the backward pass.
  { id: 'train', module: 'train.mjs', title: 'train.title', citesInline: true },
  { id: 'summary', module: 'summary.mjs', title: 'summary.title', unnumbered: true, core: true },
  { id: 'refs', module: 'refs.mjs', title: 'refs.title', unnumbered: true },
].map(Object.freeze));

/** The chapter number of each numbered section (1, 2, … in page order), by id. */
export const SECTION_NUMBERS = Object.freeze(Object.fromEntries(
  SECTIONS.filter((s) => !s.unnumbered).map((s, i) => [s.id, i + 1])));
