// The element id a URL's #hash names. A hash is percent-encoded (`#%D8%B3` for a non-Latin id),
// but a shared, typed or mangled link can hold an escape that does not decode (`#%`, `#%ZZ`,
// a cut-off UTF-8 sequence): decodeURIComponent throws a URIError on those, and a page that
// let it escape would build nothing. Such a hash names no element (no id of ours holds a
// lone '%'), so it reads as no hash at all: the page opens at the top, as for a plain link.
//
//   import { hashId } from './url-hash.mjs';
//   hashId()            // location.hash without '#', decoded
//   hashId('#%ZZ')      // '' (a malformed escape)

export function hashId(hash = globalThis.location?.hash ?? '') {
  const raw = String(hash).replace(/^#/, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return '';
  }
}
