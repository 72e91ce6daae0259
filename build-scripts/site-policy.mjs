// The site's Content-Security-Policy, in one place: make-site.mjs writes it into
// every page's <meta http-equiv> ({{csp}}), serve.mjs sends it as a header.
// 'wasm-unsafe-eval' lets the engine compile; nothing else may run or load from
// anywhere but the site itself (web/README.md explains each directive).
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "font-src 'self'",
  "img-src 'self' data: blob:",
  "worker-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
