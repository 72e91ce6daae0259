// Labelled form controls that show their value in the page's numerals.
//
// Usage (ctx is the section context: {t, tNode, fmt, …}):
//   import { slider, checkbox, select, numberField, button, controlRow } from '../widgets/controls.mjs';
//   const n = slider(ctx, { label: 's4.n', values: [8, 16, 32, 64, 128], value: 64,
//                           format: (v) => ctx.fmt(v), onInput: (v) => …, onChange: (v) => …, testid: 's4-n' });
//   const dk = slider(ctx, { label: 's4.dk', min: 1, max: 256, step: 1, value: 64, onChange });
//   const c = checkbox(ctx, { label: 's6.causal', checked: true, onChange: (on) => …, testid: 's6-causal' });
//   const v = select(ctx, { label: 's8.variant', options: [{ value: 'chunked', label: 's8.chunked' }], value, onChange });
//       option label: a text key (with optional `params`, numbers formatted per page, e.g.
//       { value: 2, label: 'practice.try.e3.bpe2', params: { b: 2 } }) or a string already
//       formatted with ctx.fmt. Digits fixed in a text follow the Latin-digits setting too.
//   const s = numberField(ctx, { label: 's4.seed', value: 1, min: 0, max: 1e9, integer: true, onChange });
//   const b = button(ctx, { label: 's8.run', onClick, testid: 's8-run' });
//   const k = intField(ctx, { label: 's8.ctl.keys', value: 10, min: 2, max: 16, errKey: 's8.err.int',
//                             testid: 's8-keys', onChange });   // the section's own error text
//       explain: true → empty / unreadable / fractional input gets err.number.* (errKey stays for the range);
//       onValidity(ok) is called on every commit (a section can mark its result stale)
//   const r = radioGroup(ctx, { legend: 's6.ctl.align', name: 's6-align', value: 'tl', onChange,
//                               options: [{ value: 'tl', label: 's6.align.topLeft', testid: 's6-align-tl' }, …] });
//   root.append(controlRow(n, dk, c));          // a wrapping flex row
//   n.value; n.value = 128;                     // read / set without firing callbacks
// `label` is a text key (rendered with tNode) or a DOM Node. Each control returns
// {el, input, value}; `values` makes a slider step through a list (index-based).
// data-testid goes on the <input>/<select>/<button> itself.

import { parseNumber, latinizeText } from '../i18n/numerals.mjs';
import { h, setT } from '../dom.mjs';

let uid = 0;
const nextId = (p) => `${p}-${++uid}`;

function labelNode(ctx, label) {
  if (label == null) return document.createTextNode('');
  if (typeof label === 'string') return ctx.tNode(label);
  return label;
}

// The parts every labelled control starts with: a fresh id (prefix-N), the wrapper
// <div class="control control-<kind>"> and a <label for=id> holding the label.
function labelled(ctx, kind, prefix, label) {
  const id = nextId(prefix);
  const el = document.createElement('div');
  el.className = `control control-${kind}`;
  const lab = document.createElement('label');
  lab.htmlFor = id;
  lab.append(labelNode(ctx, label));
  return { id, el, lab };
}

// <input type=type id=id> with data-testid when given.
function inputEl(type, id, testid) {
  const input = document.createElement('input');
  input.type = type;
  input.id = id;
  if (testid) input.dataset.testid = testid;
  return input;
}

export function controlRow(...controls) {
  const row = document.createElement('div');
  row.className = 'control-row';
  for (const c of controls) row.append(c.el || c);
  return row;
}

export function slider(ctx, opts) {
  const { label, min = 0, max = 100, step = 1, values = null, onInput, onChange, testid } = opts;
  const format = opts.format || ((v) => ctx.fmt(v));
  const { id, el, lab } = labelled(ctx, 'slider', 'sl', label);
  const input = inputEl('range', id, testid);
  const out = document.createElement('output');
  out.htmlFor = id;
  out.className = 'control-value';
  if (values) {
    input.min = '0'; input.max = String(values.length - 1); input.step = '1';
  } else {
    input.min = String(min); input.max = String(max); input.step = String(step);
  }
  const toValue = () => (values ? values[Number(input.value)] : Number(input.value));
  const show = () => {
    const txt = format(toValue());
    out.textContent = txt;
    input.setAttribute('aria-valuetext', txt);
  };
  const setValue = (v) => {
    if (values) {
      let best = 0;
      for (let i = 0; i < values.length; i++) if (Math.abs(values[i] - v) < Math.abs(values[best] - v)) best = i;
      input.value = String(best);
    } else input.value = String(v);
    show();
  };
  setValue(opts.value ?? (values ? values[0] : min));
  input.addEventListener('input', () => { show(); if (onInput) onInput(toValue()); });
  input.addEventListener('change', () => { show(); if (onChange) onChange(toValue()); });
  // A touch that turns into a vertical scroll (the browser cancels the pointer, site.css gives
  // range inputs touch-action: pan-y) must leave the value as it was (issue 21 item 7).
  let atDown = null;
  input.addEventListener('pointerdown', () => { atDown = input.value; });
  input.addEventListener('pointerup', () => { atDown = null; });
  input.addEventListener('pointercancel', () => {
    const was = atDown;
    atDown = null;
    if (was === null || was === input.value) return;
    input.value = was;
    show();
    if (onInput) onInput(toValue());
    if (onChange) onChange(toValue());
  });
  el.append(lab, input, out);
  return {
    el, input, output: out,
    get value() { return toValue(); },
    set value(v) { setValue(v); },
    refresh: show,
  };
}

export function checkbox(ctx, opts) {
  const { label, checked = false, onChange, testid } = opts;
  const { id, el, lab } = labelled(ctx, 'checkbox', 'cb', label);
  const input = inputEl('checkbox', id, testid);
  input.checked = !!checked;
  input.addEventListener('change', () => { if (onChange) onChange(input.checked); });
  el.append(input, lab);
  return {
    el, input,
    get value() { return input.checked; },
    set value(v) { input.checked = !!v; },
    get checked() { return input.checked; },
    set checked(v) { input.checked = !!v; },
  };
}

export function select(ctx, opts) {
  const { label, options = [], value, onChange, testid } = opts;
  const { id, el, lab } = labelled(ctx, 'select', 'se', label);
  const sel = document.createElement('select');
  sel.id = id;
  if (testid) sel.dataset.testid = testid;
  for (const o of options) {
    const opt = document.createElement('option');
    opt.value = String(o.value);
    // a text key when the dictionary has it, else the label (or value) as given
    const text = typeof o.label === 'string' && ctx.has && ctx.has(o.label)
      ? ctx.t(o.label, o.params) : String(o.label ?? o.value);
    // digits fixed in the text follow the Latin-digits setting (fp16 and the like are untouched)
    opt.textContent = ctx.latinDigits ? latinizeText(text) : text;
    sel.append(opt);
  }
  if (value !== undefined) sel.value = String(value);
  const cast = (s) => {
    const o = options.find((x) => String(x.value) === s);
    return o ? o.value : s;
  };
  sel.addEventListener('change', () => { if (onChange) onChange(cast(sel.value)); });
  el.append(lab, sel);
  return {
    el, input: sel,
    get value() { return cast(sel.value); },
    set value(v) { sel.value = String(v); },
  };
}

/** A text field for one number in any numerals; invalid input shows err.number.* and keeps the last value. */
export function numberField(ctx, opts) {
  const { label, min = -Infinity, max = Infinity, integer = false, onChange, testid } = opts;
  const { id, el, lab } = labelled(ctx, 'number', 'nf', label);
  const input = inputEl('text', id, testid);
  input.inputMode = integer ? 'numeric' : 'decimal';
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.dir = 'ltr';
  const msg = document.createElement('span');
  msg.className = 'field-error';
  msg.id = id + '-err';
  msg.setAttribute('aria-live', 'polite');
  input.setAttribute('aria-describedby', msg.id);
  let value = opts.value ?? 0;
  const show = () => { input.value = ctx.fmt(value, { useGrouping: false, maximumFractionDigits: 6 }); };
  show();
  const commit = () => {
    const r = parseNumber(input.value);
    let key = null;
    let params = {};
    if (!r.ok) key = numberReasonKey(r.reason);
    else if (integer && !Number.isInteger(r.value)) key = 'err.number.integer';
    else if (r.value < min || r.value > max) { key = 'err.number.range'; params = { min, max }; }
    if (key) {
      msg.textContent = '';
      msg.append(ctx.tNode(key, params));
      input.setAttribute('aria-invalid', 'true');
      return;
    }
    msg.textContent = '';
    input.removeAttribute('aria-invalid');
    if (r.value !== value) { value = r.value; if (onChange) onChange(value); }
    show();
  };
  input.addEventListener('change', commit);
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') commit(); });
  el.append(lab, input, msg);
  return {
    el, input,
    get value() { return value; },
    set value(v) { value = v; msg.textContent = ''; input.removeAttribute('aria-invalid'); show(); },
  };
}

// parseNumber's reasons that have their own message (err.number.<reason>); others read 'invalid'.
const NUMBER_REASONS = new Set(['empty', 'slash-decimal', 'trailing-minus', 'space-group']);
export const numberReasonKey = (reason) => `err.number.${NUMBER_REASONS.has(reason) ? reason : 'invalid'}`;

export function button(ctx, opts) {
  const { label, onClick, testid, kind = 'secondary' } = opts;
  const b = document.createElement('button');
  b.type = 'button';
  b.className = `btn btn-${kind}`;
  if (testid) b.dataset.testid = testid;
  b.append(labelNode(ctx, label));
  if (onClick) b.addEventListener('click', onClick);
  return { el: b, input: b };
}

// intField and radioGroup number their ids with their own counter (`<testid>-N`,
// `<name>-<value>-N`), as they did when they lived in sections/s4-scaling.mjs.
let fieldUid = 0;

/**
 * Integer text field in any numerals (Persian, Arabic-Indic, Latin). Invalid
 * input (empty, letters, NaN, out of range, fractions) shows the section's own
 * message next to the field and keeps the last valid value. `max` may be a function when the
 * range follows another control (s8's row: 1…keys), so the message states the range in force
 * instead of the field clamping silently.
 */
export function intField(ctx, { label, value, min, max: maxOpt, errKey, testid, onChange, explain = false, onValidity }) {
  const id = `${testid || 'int'}-${++fieldUid}`;
  const wrap = h('div', { class: 'control control-number' });
  const lab = h('label', { for: id });
  lab.append(typeof label === 'string' ? ctx.tNode(label) : label);
  const input = h('input', { type: 'text', id, inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', dir: 'ltr', testid });
  const msg = h('span', { class: 'field-error', id: `${id}-err`, 'aria-live': 'polite', testid: testid ? `${testid}-error` : null });
  input.setAttribute('aria-describedby', msg.id);
  let v = value;
  const show = () => { input.value = ctx.fmt(v, { useGrouping: false, maximumFractionDigits: 0 }); };
  show();
  const commit = () => {
    // a whole-number field: commas group digits in every script ("128,000", "١٢٨،٠٠٠")
    const r = ctx.parseNumber(input.value, { integer: true });
    const max = typeof maxOpt === 'function' ? maxOpt() : maxOpt;
    if (!r.ok || !Number.isInteger(r.value) || r.value < min || r.value > max) {
      // explain: say which rule failed (empty, unreadable, not whole); the range keeps errKey
      const why = !explain ? errKey : !r.ok ? numberReasonKey(r.reason)
        : !Number.isInteger(r.value) ? 'err.number.integer' : errKey;
      setT(ctx, msg, why, { min, max });
      input.setAttribute('aria-invalid', 'true');
      wrap.classList.add('is-invalid');
      if (onValidity) onValidity(false);
      return;
    }
    msg.textContent = '';
    input.removeAttribute('aria-invalid');
    wrap.classList.remove('is-invalid');
    const changed = r.value !== v;
    v = r.value;
    show();
    if (onValidity) onValidity(true);
    if (changed && onChange) onChange(v);
  };
  input.addEventListener('change', commit);
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); commit(); } });
  wrap.append(lab, input, msg);
  return {
    el: wrap, input,
    get value() { return v; },
    set value(x) { v = x; msg.textContent = ''; input.removeAttribute('aria-invalid'); wrap.classList.remove('is-invalid'); show(); },
  };
}

/** A radio group (fieldset) whose labels may hold KaTeX. */
export function radioGroup(ctx, { legend, name, options, value, onChange }) {
  const fs = h('fieldset', { class: 'control control-radio' });
  const lg = h('legend');
  lg.append(ctx.tNode(legend));
  fs.append(lg);
  const inputs = [];
  // One name for the whole group: the browser then keeps exactly one option checked and
  // moves the choice with the arrow keys. The counter keeps two groups of a page apart.
  const group = `${name}-${++fieldUid}`;
  for (const o of options) {
    const id = `${name}-${o.value}-${++fieldUid}`;
    const input = h('input', { type: 'radio', name: group, id, value: o.value, testid: o.testid });
    input.checked = o.value === value;
    input.addEventListener('change', () => { if (input.checked && onChange) onChange(o.value); });
    const lab = h('label', { for: id });
    lab.append(ctx.tNode(o.label));
    fs.append(h('span', { class: 'radio-item' }, input, lab));
    inputs.push(input);
  }
  return {
    el: fs,
    get value() { const c = inputs.find((i) => i.checked); return c ? c.value : null; },
    set value(v) { for (const i of inputs) i.checked = i.value === v; },
  };
}
