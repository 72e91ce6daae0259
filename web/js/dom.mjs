// Small DOM helpers shared by the lesson sections, the widgets and the practice
// blocks: one element builder, text-key setters, and a guard that keeps one
// render running at a time. Nothing here knows about the engine or the store.
//
// Usage:
//   import { h, el, prose, setT, patch, patchT, liveLine, textOf, spokenText, nodeOf, serial } from '../dom.mjs';
//   h('button', { class: 'btn', testid: 's8-run', type: 'button', on: { click } }, child, …)
//   el('div', 'roads', loop, matrix)             // h() with only a class
//   const { P, H3 } = prose(ctx);  root.append(H3('s3.loopTitle'), P('s3.loopText'));
//   setT(ctx, status, 's7.err.engine');          // replace content by a text key
//   patchT(ctx, line, 's4.out.max', { v });       // the same, keeping the nodes that did not change
//   const lineMax = liveLine(ctx, outMax, 's4.out.max');  lineMax({ v });   // the same, for a slider's line
//   const calc = serial(async () => { … });      // calls during a run collapse into one re-run

/**
 * h(tag, props, ...kids). Known props: class, testid, text, on ({event: fn}), hidden,
 * dataset; every other prop is an attribute (true → present, false/null → absent).
 * Kids: Nodes or strings; arrays are flattened, null/undefined/false are skipped.
 */
export function h(tag, props = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v == null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'testid') e.dataset.testid = v;
    else if (k === 'text') e.textContent = v;
    else if (k === 'hidden') e.hidden = !!v;
    else if (k === 'on') for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat()) if (kid != null && kid !== false) e.append(kid);
  return e;
}

/** h() with a class name only: el('p', 'note', …kids); a null/empty class sets none. */
export const el = (tag, cls, ...kids) => h(tag, { class: cls || null }, ...kids);

/** Paragraph and <h3> builders for a section's text keys (ctx.tNode). */
export function prose(ctx) {
  return {
    P: (key, params) => el('p', null, ctx.tNode(key, params)),
    H3: (key, params) => el('h3', null, ctx.tNode(key, params)),
  };
}

/** Replace node's content by the text key rendered with params. */
export function setT(ctx, node, key, params) {
  node.textContent = '';
  node.append(ctx.tNode(key, params));
  return node;
}

// Like setT, but keeps the nodes that did not change (the formulas, the words around the
// numbers) and only rewrites the text that did: a slider move then re-lays out a few
// numbers instead of whole paragraphs of KaTeX, and a live region announces one update.
// Equal subtrees are found with the native isEqualNode; an element that differs is
// entered only when its tag and attributes are the same, else replaced (nothing is
// copied attribute by attribute: the CSP allows styles only through the CSSOM).
const sameAttrs = (x, y) => x.attributes.length === y.attributes.length &&
  [...y.attributes].every((a) => x.getAttribute(a.name) === a.value);
function patchChildren(x, y) {
  const xs = x.childNodes, ys = [...y.childNodes];
  if (xs.length !== ys.length) { x.replaceChildren(...ys); return; }
  for (let i = 0; i < ys.length; i++) {
    const a = xs[i], b = ys[i];
    if (a.nodeType === Node.TEXT_NODE && b.nodeType === Node.TEXT_NODE) { if (a.data !== b.data) a.data = b.data; }
    else if (a.isEqualNode(b)) continue;
    else if (a.nodeType === Node.ELEMENT_NODE && a.nodeName === b.nodeName && sameAttrs(a, b)) patchChildren(a, b);
    else x.replaceChild(b, a);
  }
}

/** node's content becomes kids (Nodes or strings), patched in place (see above). */
export function patch(node, ...kids) {
  const wrap = document.createElement(node.nodeName);
  wrap.append(...kids);
  patchChildren(node, wrap);
  return node;
}

/** setT, patched in place: patchT(ctx, node, key, params). */
export const patchT = (ctx, node, key, params) => patch(node, ctx.tNode(key, params));

// A line whose numbers follow a slider: liveLine(ctx, node, key) renders the text (with its
// KaTeX formulas) once, on the first call, with a marker for each number; later calls
// rewrite only the numbers' text nodes that changed. patchT would render the formulas again
// on every move to compare them, and that cost more script time than the rest of s4's
// redraw. The template must be the same for every value: params are formatted strings
// (the page reloads on a settings change), and every param must sit in a span.num.
const MARK = '\u2060';
export function liveLine(ctx, node, key) {
  let slots = null;
  return (params) => {
    if (!slots) {
      const marks = {};
      for (const name of Object.keys(params)) marks[name] = `${MARK}${name}${MARK}`;
      const frag = ctx.tNode(key, marks);
      slots = [];
      for (const s of frag.querySelectorAll('span.num')) {
        const m = s.textContent.match(/^\u2060(.+)\u2060$/);
        if (!m) continue;
        const text = document.createTextNode('');
        s.replaceChildren(text);
        slots.push([text, m[1]]);
      }
      node.replaceChildren(frag);
    }
    for (const [text, name] of slots) {
      const v = String(params[name]);
      if (text.data !== v) text.data = v;
    }
  };
}

/**
 * A node's text as a screen reader would say it: a formula counts as its aria-label (its
 * textContent holds KaTeX's MathML, TeX source and drawn glyphs one after the other: "WQW_QWQ"),
 * what is aria-hidden counts as nothing. For names built by hand (aria-label, a region's name).
 */
export function spokenText(node) {
  if (!node) return '';
  if (node.nodeType === 3) return node.data;
  if (node.nodeType !== 1 && node.nodeType !== 11) return '';
  if (node.nodeType === 1) {
    if (node.getAttribute('aria-hidden') === 'true') return '';
    const label = node.getAttribute('aria-label');
    if (label && (node.getAttribute('role') === 'math' || node.classList.contains('katex'))) return label;
    if (node.classList.contains('katex-mathml')) return '';
  }
  let out = '';
  for (const c of node.childNodes) out += spokenText(c);
  return out;
}

/** A label given as a text key (or a Node, or nothing), as plain text. */
export const textOf = (ctx, x) => (x == null ? '' : typeof x === 'string' ? ctx.t(x) : spokenText(x));

/** The same label as a Node to append (a given Node is cloned, so it can be used twice). */
export const nodeOf = (ctx, x) => (x == null ? document.createTextNode('') : typeof x === 'string' ? ctx.tNode(x) : x.cloneNode(true));

/** Run fn at most once at a time; calls made meanwhile collapse into one re-run. */
export function serial(fn) {
  let running = false, again = false;
  return async function run() {
    if (running) { again = true; return; }
    running = true;
    try {
      do { again = false; await fn(); } while (again);
    } finally { running = false; }
  };
}

/**
 * The frame of a figure widget (chart, heatmap): <figure class=cls data-testid=testid>
 * and its <figcaption class=capClass id="<id>-cap"> holding label (text key or Node),
 * not yet appended (the widget puts it first, with its own parts).
 */
export function captionedFigure(ctx, { cls, capClass, id, testid, label }) {
  const el = h('figure', { class: cls, testid });
  const cap = h('figcaption', { class: capClass, id: `${id}-cap` });
  if (label) cap.append(nodeOf(ctx, label));
  return { el, cap };
}
