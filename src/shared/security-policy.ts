/**
 * The Content-Security-Policy of every Loom window and of the browser mode's pages.
 * Kept in one place: src/main sets it as a response header, src/server sends it with every
 * page, and src/renderer/index.html carries the same text in a meta tag (a test compares).
 * No inline scripts, no eval, nothing fetched from anywhere but the app itself.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Served as a header only (a meta tag cannot carry frame-ancestors). */
export const CONTENT_SECURITY_POLICY_HEADER = `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`;
