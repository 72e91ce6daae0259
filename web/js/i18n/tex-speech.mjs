// A formula's TeX as plain text a screen reader can speak and a page can show when KaTeX is
// missing: "\operatorname{softmax}\!\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)V" becomes
// "softmax(QKᵀ/√dₖ)V". It covers the TeX the lesson's text files and sections use (a test
// renders every formula of web/text/*/*.json and fails on any TeX left over); it is not a
// TeX parser for everything.
//
// Usage: import { texToText } from './tex-speech.mjs';  texToText('e^{s_j-m}') → 'exp(sⱼ−m)'
//
// Scripts: a short sub- or superscript whose characters all have a Unicode form is written
// with them (dₖ, n², Hₖᵥ, QKᵀ); a word is set after a space (d model, m old), since a run of
// subscript letters is neither readable nor spoken; e to a power that has no such form is
// exp(…); the limits of ∑ that have none are written ∑(i=1…dₖ).

const SUB = Object.fromEntries([...'0123456789aehijklmnoprstuvx+−=()'].map((c, i) => [c, '₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₊₋₌₍₎'[i]]));
const SUP = Object.fromEntries([...'0123456789abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW+−=()'].map((c, i) => [c,
  [...'⁰¹²³⁴⁵⁶⁷⁸⁹ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ⁺⁻⁼⁽⁾'][i]]));
for (const c of 'ᵀ′') SUP[c] = c;   // already raised: \top, a prime

const GREEK = {
  alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', epsilon: 'ε', varepsilon: 'ε', zeta: 'ζ', eta: 'η',
  theta: 'θ', iota: 'ι', kappa: 'κ', lambda: 'λ', mu: 'μ', nu: 'ν', xi: 'ξ', pi: 'π', rho: 'ρ',
  sigma: 'σ', tau: 'τ', phi: 'φ', varphi: 'φ', chi: 'χ', psi: 'ψ', omega: 'ω',
  Gamma: 'Γ', Delta: 'Δ', Theta: 'Θ', Lambda: 'Λ', Xi: 'Ξ', Pi: 'Π', Sigma: 'Σ', Phi: 'Φ', Psi: 'Ψ', Omega: 'Ω',
};
const SYMBOLS = {
  ...GREEK,
  cdot: '·', times: '×', div: '÷', pm: '±', mp: '∓', infty: '∞', top: 'ᵀ', prime: '′', ell: 'ℓ',
  le: '≤', leq: '≤', ge: '≥', geq: '≥', ne: '≠', neq: '≠', approx: '≈', sim: '∼', equiv: '≡', propto: '∝',
  lt: '<', gt: '>', ll: '≪', gg: '≫', in: '∈', notin: '∉', subset: '⊂', cup: '∪', cap: '∩',
  to: '→', rightarrow: '→', leftarrow: '←', Rightarrow: '⇒', mapsto: '↦', gets: '←',
  sum: '∑', prod: '∏', int: '∫', partial: '∂', nabla: '∇',
  dots: '…', ldots: '…', cdots: '⋯', vdots: '⋮',
  lVert: '‖', rVert: '‖', Vert: '‖', '|': '‖', lvert: '|', rvert: '|', vert: '|', mid: '|',
  langle: '⟨', rangle: '⟩', lfloor: '⌊', rfloor: '⌋', lceil: '⌈', rceil: '⌉',
  '{': '{', '}': '}', '%': '%', '$': '$', '#': '#', '&': '&', _: '_',
  ',': ' ', ';': ' ', ':': ' ', ' ': ' ', quad: ' ', qquad: ' ', '!': '',
};
// Written as words, with a space before what follows them ("ln p", "max s").
const NAMES = new Set(['ln', 'log', 'exp', 'max', 'min', 'sin', 'cos', 'tan', 'tanh', 'lim', 'arg', 'argmax', 'argmin', 'det', 'sup', 'inf', 'softmax']);
// Their one argument is written as plain text.
const TEXT_CMDS = new Set(['text', 'mathrm', 'operatorname', 'mathit', 'mathbf', 'mathsf', 'mathtt', 'textrm', 'textit', 'textbf', 'boldsymbol', 'mathcal', 'mathbb']);
// Sizes and delimiters' companions: dropped (the delimiter after them stays).
const DROPPED = new Set(['left', 'right', 'big', 'Big', 'bigg', 'Bigg', 'bigl', 'bigr', 'Bigl', 'Bigr', 'displaystyle', 'textstyle', 'limits', 'nolimits']);
const BIG_OPS = new Set(['∑', '∏', '∫']);

// ---- tokens: {t:'cmd', s} | {t:'char', s} | {t:'space'} | {t:'group', items} | {t:'^'} | {t:'_'}
function parse(src) {
  let i = 0;
  function run(closer) {
    const items = [];
    while (i < src.length) {
      const c = src[i];
      if (c === '}') { i++; if (closer) return items; continue; }
      if (c === '{') { i++; items.push({ t: 'group', items: run(true) }); continue; }
      if (c === '\\') {
        const m = /^[A-Za-z]+/.exec(src.slice(i + 1));
        const name = m ? m[0] : (src[i + 1] ?? '');
        i += 1 + name.length;
        if (m) while (i < src.length && /\s/.test(src[i])) i++;   // a control word ends at its space
        items.push({ t: 'cmd', s: name });
        continue;
      }
      if (c === '^' || c === '_') { items.push({ t: c }); i++; continue; }
      if (/\s/.test(c)) { while (i < src.length && /\s/.test(src[i])) i++; items.push({ t: 'space' }); continue; }
      items.push({ t: 'char', s: c });
      i++;
    }
    return items;
  }
  return run(false);
}

const plainChar = (c) => (c === '-' ? '−' : c === "'" ? '′' : c === '*' ? '∗' : c);
const wordRun = (s) => /\p{L}{3}/u.test(s);

function scripted(text, map) {
  if (!text || wordRun(text)) return null;
  let out = '';
  for (const c of text) { if (!(c in map)) return null; out += map[c]; }
  return out;
}

// Text of a list of tokens; `next()` hands a command its arguments.
function render(items) {
  let out = '';
  let k = 0;
  const skipSpace = () => { while (items[k] && items[k].t === 'space') k++; };
  const arg = () => {   // one argument: a group or one token
    skipSpace();
    const a = items[k++];
    if (!a) return '';
    if (a.t === 'group') return render(a.items);
    if (a.t === 'cmd') return render([a]);
    return a.t === 'char' ? plainChar(a.s) : '';
  };
  const optional = () => {   // \sqrt[3]{x}: the [..] is skipped
    skipSpace();
    if (items[k] && items[k].t === 'char' && items[k].s === '[') {
      while (items[k] && !(items[k].t === 'char' && items[k].s === ']')) k++;
      k++;
    }
  };
  const wrap = (s) => (/[\s+−=·×/<>≤≥≈]/.test(s.trim()) ? `(${s.trim()})` : s.trim());

  // the base just written, for the scripts after it
  let baseStart = 0;
  while (k < items.length) {
    const it = items[k++];
    if (it.t === '^' || it.t === '_') {
      // collect this and a following script of the other kind (x_i^2, \sum_{…}^{…})
      const scripts = { [it.t]: arg() };
      if (items[k] && (items[k].t === '^' || items[k].t === '_') && !(items[k].t in scripts)) {
        const kind = items[k++].t;
        scripts[kind] = arg();
      }
      const base = out.slice(baseStart);
      out = out.slice(0, baseStart) + withScripts(base, scripts['_'], scripts['^']);
      continue;
    }
    baseStart = out.length;
    if (it.t === 'space') {
      // (spaces in TeX's math are the source's layout; one before a closing bracket is dropped)
      const n = items[k];
      const closes = n && ((n.t === 'char' && /[)\]]/.test(n.s)) || (n.t === 'cmd' && /^(rVert|rvert|right|rangle)$/.test(n.s)));
      if (!closes) out += ' ';
      baseStart = out.length;
      continue;
    }
    if (it.t === 'char') { out += plainChar(it.s); continue; }
    if (it.t === 'group') { out += render(it.items); continue; }
    const name = it.s;
    if (name === 'frac' || name === 'dfrac' || name === 'tfrac') {
      const a = arg(), b = arg();
      out += `${wrap(a)}/${wrap(b)}`;
    } else if (name === 'sqrt') {
      optional();
      out += `√${wrap(arg())}`;
    } else if (TEXT_CMDS.has(name)) {
      const a = arg();
      out += a;
      if (NAMES.has(a.trim())) out += nameGap(items, k);
    } else if (DROPPED.has(name)) {
      skipSpace();
      if (items[k] && items[k].t === 'char' && items[k].s === '.') k++;   // \left. : no delimiter
      baseStart = out.length;
    } else if (NAMES.has(name)) {
      if (/[\p{L}\p{N})]$/u.test(out)) { out += ' '; baseStart = out.length; }   // "1/m ln"
      out += name + nameGap(items, k);
    } else if (name in SYMBOLS) {
      out += SYMBOLS[name];
    } else {
      out += name;   // unknown: its name without the backslash (the test lists these)
    }
  }
  return out;
}

// "ln p", "ln(x)", "max_j s_j": a space after a function name unless a bracket or a script follows.
function nameGap(items, k) {
  const n = items[k];
  if (!n || n.t === 'space' || n.t === '^' || n.t === '_') return '';
  if (n.t === 'char' && /[(\[|]/.test(n.s)) return '';
  if (n.t === 'cmd' && (DROPPED.has(n.s) || n.s === '!')) return '';
  return ' ';
}

function withScripts(base, sub, sup) {
  const b = base.replace(/ $/, '');
  const gap = base.length - b.length ? ' ' : '';
  let s = b;
  const op = BIG_OPS.has(b.trim());
  if (op && sub != null && sup != null) {
    const lo = scripted(sub.trim(), SUB), hi = scripted(sup.trim(), SUP);
    if (lo != null && hi != null) return b + lo + hi + gap;
    return `${b}(${sub.trim()}…${sup.trim()})${gap}`;
  }
  if (sub != null) {
    const t = sub.trim();
    const u = scripted(t, SUB);
    s += u != null ? u : ` ${t}`;
  }
  if (sup != null) {
    const t = sup.trim();
    const u = scripted(t, SUP);
    const compound = /.[+−=]/.test(t);   // e^{m−m′}: exp(m − m′), not a row of raised letters
    if (u != null && !(compound && b.endsWith('e'))) s += u;
    else if (b.endsWith('e') && sub == null) s = `${b.slice(0, b.length - 1)}exp(${t})`;
    else s += `^(${t})`;   // (no formula of the lesson comes here: the test would name it)
  }
  return s + gap;
}

// One spacing whatever the source's: a space each side of a relation or a binary operator, none
// after a sign ("= −∞", "(−c)") or around "/", one after ∑ and its index ("∑ⱼ pⱼ").
const RELATION = /\s*([=≈≠≤≥<>∼≡→·×])\s*/g;
const PLUS_MINUS = /\s*([+−])\s*/g;
function space(s) {
  s = s.replace(/\s+/g, ' ').replace(RELATION, ' $1 ');
  s = s.replace(PLUS_MINUS, (m, op, at, all) => {
    const before = all.slice(0, at).trimEnd();
    const unary = !before || /[(\[{,=≈≠≤≥<>·×/+−]$/.test(before);
    return unary ? (m.startsWith(' ') ? ' ' : '') + op : ` ${op} `;
  });
  return s.replace(/\s*\/\s*/g, '/')
    .replace(/([∑∏∫][ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₀-₉₊₋₌]*)(?![ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₀-₉₊₋₌])(?=[\p{L}\p{N}])/gu, '$1 ')
    .replace(/\( /g, '(').replace(/ \)/g, ')').replace(/\s+/g, ' ').trim();
}

/** Plain, speakable text of a TeX formula. */
export function texToText(tex) {
  return space(render(parse(String(tex))));
}
