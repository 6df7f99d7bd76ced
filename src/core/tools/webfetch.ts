/**
 * webfetch: one public web page as readable text.
 *
 * Every hop (the first request and each redirect) resolves its host name through the
 * network policy and then connects to exactly the address the policy approved (a custom
 * `lookup` pins it), so a DNS answer that changes between check and connect (DNS
 * rebinding) cannot reach loopback, private or metadata addresses.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { z } from 'zod';
import { formatBytes } from '../../shared/byte-size';
import { LoomError } from '../errors';
import { resolvePublicAddress, type PublicAddress } from '../security/net-policy';
import { wrapExternalDocument } from '../security/untrusted';
import { defineTool } from './tool';

const WEBFETCH_TIMEOUT_MS = 15_000;
export const WEBFETCH_MAX_BYTES = 2 * 1024 * 1024;
const WEBFETCH_MAX_REDIRECTS = 5;
const TEXT_TYPES = [/^text\//, /^application\/json$/, /^application\/[\w.+-]+\+json$/, /^application\/xhtml\+xml$/];
const HTML_TYPES = ['text/html', 'application/xhtml+xml'];
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Host name -> the one address to connect to; throws when the host may not be reached. */
export type AddressResolver = (hostname: string) => Promise<PublicAddress>;

export interface FetchOptions {
  /** The network policy. Tests substitute it to reach their loopback server; nothing else changes. */
  resolve: AddressResolver;
  signal: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface FetchedPage {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  contentType: string;
  /** Readable text: HTML converted, JSON pretty-printed, other text as sent. */
  text: string;
  /** Bytes read (after decompression). */
  bytes: number;
  /** True when the body was longer than maxBytes and was cut. */
  truncated: boolean;
}

interface Hop {
  status: number;
  headers: http.IncomingHttpHeaders;
  response: http.IncomingMessage;
}

/** Parses and checks a URL the model gave: http or https, no embedded credentials. */
function parseWebUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LoomError(`Not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LoomError(`webfetch fetches only http and https URLs, not ${url.protocol.replace(/:$/, '')}: ${raw}`);
  }
  if (url.username || url.password) throw new LoomError('webfetch does not fetch URLs that contain a user name or password.');
  return url;
}

function pinnedLookup(pinned: PublicAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}

/** One GET to `url`, connected to `pinned` whatever DNS says now. */
function requestPinned(url: URL, pinned: PublicAddress, signal: AbortSignal): Promise<Hop> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'GET',
      // No keep-alive pool: a pooled socket could carry a later request past its own check.
      agent: false,
      lookup: pinnedLookup(pinned),
      signal,
      headers: {
        'user-agent': 'Loom-webfetch/0.1',
        accept: 'text/html, application/xhtml+xml, application/json;q=0.9, text/*;q=0.8',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    req.on('response', (response) => resolve({ status: response.statusCode ?? 0, headers: response.headers, response }));
    req.on('error', reject);
    req.end();
  });
}

function decodedStream(hop: Hop): Readable {
  const encoding = String(hop.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return hop.response.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return hop.response.pipe(zlib.createInflate());
  if (encoding === 'br') return hop.response.pipe(zlib.createBrotliDecompress());
  return hop.response;
}

/** Reads at most maxBytes of the (decompressed) body: a zip bomb stops at the cap too. */
async function readCapped(hop: Hop, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const stream = decodedStream(hop);
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      if (size + buf.length > maxBytes) {
        chunks.push(buf.subarray(0, maxBytes - size));
        truncated = true;
        break;
      }
      chunks.push(buf);
      size += buf.length;
    }
  } finally {
    stream.destroy();
    hop.response.destroy();
  }
  return { body: Buffer.concat(chunks), truncated };
}

function mediaType(contentType: string): string {
  const [type = ''] = contentType.split(';'); // split gives at least one part
  return type.trim().toLowerCase();
}

function charsetOf(contentType: string): string {
  return /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] ?? 'utf-8';
}

function decodeBody(body: Buffer, contentType: string): string {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(body);
  } catch {
    // An unknown charset label: UTF-8 is the best guess for the web.
    return new TextDecoder('utf-8').decode(body);
  }
}

/**
 * HTML to readable text: headings kept as written, links absolute, images dropped. The
 * converter (html-to-text, its HTML parser and entity tables) loads on the first page
 * fetched, not with every chat.
 */
async function htmlToReadableText(html: string, pageUrl: string): Promise<string> {
  const { convert } = await import('html-to-text');
  const text = convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'img', format: 'skip' },
      {
        selector: 'a',
        options: {
          hideLinkHrefIfSameAsText: true,
          noAnchorUrl: true,
          pathRewrite: (href: string) => absoluteHref(href, pageUrl),
        },
      },
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  });
  return text.replace(/\n{3,}/g, '\n\n').trim();
}

function absoluteHref(href: string, base: string): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

function assertTextType(contentType: string, pageUrl: string): void {
  const type = mediaType(contentType);
  if (!TEXT_TYPES.some((re) => re.test(type))) {
    throw new LoomError(`webfetch reads only text, HTML and JSON; ${pageUrl} is ${type || 'of an unknown type (no Content-Type)'}.`);
  }
}

/** The body as text the model can read; refuses media types that are not text. */
async function renderBody(body: Buffer, contentType: string, pageUrl: string, truncated: boolean): Promise<string> {
  assertTextType(contentType, pageUrl);
  const type = mediaType(contentType);
  const text = decodeBody(body, contentType);
  if (HTML_TYPES.includes(type)) return htmlToReadableText(text, pageUrl);
  if (type.endsWith('json') && !truncated) return prettyJson(text);
  return text;
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function bareHostname(url: URL): string {
  // URL keeps IPv6 literals in brackets; the resolver wants the address itself.
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function describeFailure(err: unknown, url: URL, timeout: AbortSignal, timeoutMs: number): LoomError {
  if (err instanceof LoomError) return err;
  if (timeout.aborted) return new LoomError(`webfetch timed out after ${Math.ceil(timeoutMs / 1000)} s: ${url.href}`);
  if ((err as Error).name === 'AbortError') return new LoomError(`webfetch was cancelled: ${url.href}`);
  return new LoomError(`Could not fetch ${url.href}: ${(err as Error).message}`);
}

/** Follows redirects by hand so that every hop passes the network policy again. */
async function followRedirects(start: URL, opts: FetchOptions, signal: AbortSignal): Promise<{ url: URL; hop: Hop }> {
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const pinned = await opts.resolve(bareHostname(url));
    const hop = await requestPinned(url, pinned, signal);
    const location = hop.headers.location;
    if (!REDIRECTS.has(hop.status) || !location) return { url, hop };
    hop.response.destroy();
    if (redirects === WEBFETCH_MAX_REDIRECTS) {
      throw new LoomError(`Too many redirects (more than ${WEBFETCH_MAX_REDIRECTS}) starting from ${start.href}.`);
    }
    url = parseWebUrl(absoluteHref(location, url.href));
  }
}

/**
 * Fetches a page: resolve and pin each hop through `opts.resolve`, follow up to 5
 * redirects, refuse non-text media types, read at most maxBytes, convert to text.
 */
export async function fetchPage(rawUrl: string, opts: FetchOptions): Promise<FetchedPage> {
  const start = parseWebUrl(rawUrl);
  const timeoutMs = opts.timeoutMs ?? WEBFETCH_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([opts.signal, timeout]);
  let current = start;
  try {
    const { url, hop } = await followRedirects(start, opts, signal);
    current = url;
    const contentType = String(hop.headers['content-type'] ?? '');
    try {
      // Checked before reading: a refused type costs no download.
      assertTextType(contentType, url.href);
    } catch (err) {
      hop.response.destroy();
      throw err;
    }
    const { body, truncated } = await readCapped(hop, opts.maxBytes ?? WEBFETCH_MAX_BYTES);
    const text = await renderBody(body, contentType, url.href, truncated);
    return { url: url.href, status: hop.status, contentType: mediaType(contentType), text, bytes: body.length, truncated };
  } catch (err) {
    throw describeFailure(err, current, timeout, timeoutMs);
  }
}

export function formatPage(page: FetchedPage): string {
  const size = `${page.bytes} bytes`;
  const head = `Fetched ${page.url} (HTTP ${page.status}, ${page.contentType}, ${size}).`;
  const cut = page.truncated
    ? `\n[The page is larger than ${formatBytes(WEBFETCH_MAX_BYTES)}; only the first ${formatBytes(WEBFETCH_MAX_BYTES)} were read.]`
    : '';
  return `${head}${cut}\n${wrapExternalDocument('web', page.url, page.text)}`;
}

export const webfetchTool = defineTool({
  name: 'webfetch',
  description:
    'Fetch a public web page over http or https and return it as readable text (HTML converted; JSON and plain text as is). ' +
    'Private, loopback and cloud-metadata addresses are refused. 15 s timeout, 2 MB cap.',
  effects: { kind: 'network', url: (args) => args.url },
  schema: z.strictObject({
    url: z.string().trim().min(1).max(2048).describe('Absolute http:// or https:// URL.'),
  }),
  async run({ url }, ctx) {
    const page = await fetchPage(url, { resolve: resolvePublicAddress, signal: ctx.signal });
    return formatPage(page);
  },
});
