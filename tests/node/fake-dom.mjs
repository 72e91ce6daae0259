// The little of the DOM that the widgets of web/js/widgets/controls.mjs build with
// (createElement, attributes, dataset, append, events), for Node tests of what they build.
// Radio inputs follow the browser's rule: checking one (click()) unchecks every other radio
// with the same name in the same tree, then fires `change` on it.
//
// Usage: const dom = installFakeDom();  … build widgets …;  dom.uninstall();
//   el.click()   el.querySelectorAll('input')   (tag names only)   el.textContent

class FakeNode extends EventTarget {
  constructor() { super(); this.parentNode = null; this.childNodes = []; }
  append(...kids) {
    for (const k of kids) {
      const node = typeof k === 'string' ? new FakeText(k) : k;
      node.parentNode = this;
      this.childNodes.push(node);
    }
  }
  get textContent() { return this.childNodes.map((c) => c.textContent).join(''); }
  set textContent(t) { this.childNodes = []; if (t) this.append(String(t)); }
  get root() { let n = this; while (n.parentNode) n = n.parentNode; return n; }
  *descendants() { for (const c of this.childNodes) { yield c; if (c.descendants) yield* c.descendants(); } }
}

class FakeText extends FakeNode {
  constructor(data) { super(); this.data = String(data); }
  get textContent() { return this.data; }
}

const REFLECTED = ['id', 'name', 'type', 'value', 'for'];

class FakeElement extends FakeNode {
  constructor(tag) {
    super();
    this.tagName = tag.toUpperCase();
    this.attributes = new Map();
    this.dataset = {};
    this.className = '';
    this.checked = false;
    this.disabled = false;
    for (const a of REFLECTED) {
      Object.defineProperty(this, a === 'for' ? 'htmlFor' : a, {
        get: () => this.attributes.get(a) ?? '', set: (v) => this.attributes.set(a, String(v)),
      });
    }
  }
  // classList over className (intField marks an invalid field with it)
  get classList() {
    const names = () => this.className.split(/\s+/).filter(Boolean);
    return {
      add: (...c) => { this.className = [...new Set([...names(), ...c])].join(' '); },
      remove: (...c) => { this.className = names().filter((n) => !c.includes(n)).join(' '); },
      contains: (c) => names().includes(c),
    };
  }
  setAttribute(k, v) { this.attributes.set(k, String(v)); }
  getAttribute(k) { return this.attributes.has(k) ? this.attributes.get(k) : null; }
  removeAttribute(k) { this.attributes.delete(k); }
  querySelectorAll(tag) { return [...this.descendants()].filter((n) => n.tagName === tag.toUpperCase()); }
  click() {
    if (this.tagName === 'INPUT' && this.type === 'radio') {
      if (this.checked) return;
      for (const other of this.root.querySelectorAll?.('input') ?? []) {
        if (other !== this && other.type === 'radio' && other.name !== '' && other.name === this.name) other.checked = false;
      }
      this.checked = true;
      this.dispatchEvent(new Event('change'));
    } else this.dispatchEvent(new Event('click'));
  }
}

export function installFakeDom() {
  const previous = globalThis.document;
  globalThis.document = {
    createElement: (tag) => new FakeElement(tag),
    createTextNode: (t) => new FakeText(t),
  };
  return { uninstall() { globalThis.document = previous; } };
}
