// The prose mini-markup (web/README.md "Markup inside a string"), parsed: the one reading of
// `code`, $math$, **bold**, [placeholder] and \-escapes that the page renders (i18n.mjs),
// the build checks (build-scripts/text-checks.mjs) and the static pages (make-site.mjs) share.
//
// Usage:
//   parseMarkup('**a** `x` $q$ [n]')   // [{type:'strong', parts}, {type:'text', s:' '}, {type:'code', parts}, …]
//   markupProblems('`x')                // ['unbalanced backtick']: a delimiter never closed
//   markupPlain('**a** `x`')           // 'a x': the text a reader sees, TeX left as its source
//
// Nodes: {type:'text', s} | {type:'ph', name} | {type:'code', parts} | {type:'math', s} |
// {type:'strong', parts}. A `code` or **bold** never closed runs to the end of the string (it
// would swallow the rest, hence markupProblems); a $ never closed stays a literal $.

export function parseMarkup(str) {
  return parseRun(String(str), 0, null, []).nodes;
}

/** What a string's markup leaves open: 'unbalanced backtick' | 'unbalanced $' | 'unbalanced **'. */
export function markupProblems(str) {
  const problems = [];
  parseRun(String(str), 0, null, problems);
  return [...new Set(problems)];
}

/** Whether any node (at any depth) is of `type`. */
export function hasNode(nodes, type) {
  return nodes.some((n) => n.type === type || (n.parts && hasNode(n.parts, type)));
}

/** The nodes as plain text: markup dropped, [placeholders] and TeX source kept as written. */
export function markupPlain(nodes) {
  if (typeof nodes === 'string') nodes = parseMarkup(nodes);
  return nodes.map((n) => (n.type === 'text' ? n.s : n.type === 'ph' ? `[${n.name}]`
    : n.type === 'math' ? n.s : markupPlain(n.parts))).join('');
}

const PH = /^\[([A-Za-z_][A-Za-z0-9_.]*)\]/;
const UNCLOSED = { '`': 'unbalanced backtick', '**': 'unbalanced **' };

function parseRun(s, i, closer, problems) {
  const nodes = [];
  let buf = '';
  const flush = () => { if (buf) { nodes.push({ type: 'text', s: buf }); buf = ''; } };
  while (i < s.length) {
    if (closer === '**' && s.startsWith('**', i)) { flush(); return { nodes, i: i + 2 }; }
    if (closer === '`' && s[i] === '`') { flush(); return { nodes, i: i + 1 }; }
    const c = s[i];
    if (c === '\\' && i + 1 < s.length && '`$*[\\'.includes(s[i + 1])) { buf += s[i + 1]; i += 2; continue; }
    if (closer !== '`' && c === '`') {
      flush();
      const r = parseRun(s, i + 1, '`', problems);
      nodes.push({ type: 'code', parts: r.nodes });
      i = r.i; continue;
    }
    if (closer !== '`' && c === '$') {
      let j = i + 1;
      while (j < s.length && !(s[j] === '$' && s[j - 1] !== '\\')) j++;
      if (j < s.length) { flush(); nodes.push({ type: 'math', s: s.slice(i + 1, j) }); i = j + 1; continue; }
      problems.push('unbalanced $');
    }
    if (closer === null && s.startsWith('**', i)) {
      flush();
      const r = parseRun(s, i + 2, '**', problems);
      nodes.push({ type: 'strong', parts: r.nodes });
      i = r.i; continue;
    }
    if (c === '[') {
      const m = PH.exec(s.slice(i, i + 64));
      if (m) { flush(); nodes.push({ type: 'ph', name: m[1] }); i += m[0].length; continue; }
    }
    buf += c; i++;
  }
  flush();
  if (closer) problems.push(UNCLOSED[closer]);
  return { nodes, i };
}
