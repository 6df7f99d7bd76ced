/**
 * The browser mode's transport: the bridge contract over HTTP on 127.0.0.1.
 *
 *   POST /api/<method>      JSON body = the method's input; answers a BridgeResult
 *   GET  /api/events        Server-Sent Events: one BridgeEvent per `data:` line
 *   GET  /download/<ticket> a session's export as a file, once (drag-export; docs/SECURITY.md#download-tickets)
 *   GET  /…                 the built renderer (public: it holds no secrets)
 *
 * Every /api request must carry the per-run token in the header `x-loom-token`, never in a
 * URL. A download, which the browser fetches by itself for a DownloadURL drag, presents a
 * ticket instead: minted by an authenticated call, single-use, short-lived. Every request
 * must name this server in its Host header (127.0.0.1:PORT or localhost:PORT), which
 * defeats DNS rebinding; a foreign Origin is refused; no CORS headers are ever sent, so
 * other sites cannot read anything.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { DEFAULT_MAX_BODY_BYTES, contract, isMethodName, type BridgeEvent, type BridgeResult, type ExportFormat, type Handlers } from '../shared/contract';
import { CONTENT_SECURITY_POLICY_HEADER } from '../shared/security-policy';
import { dispatch, failure } from '../backend/dispatch';

const TOKEN_HEADER = 'x-loom-token';

export interface BridgeServerOptions {
  handlers: Handlers;
  /** Subscribes to the pushed events; returns the unsubscribe function. */
  subscribe(listener: (event: BridgeEvent) => void): () => void;
  /** A download ticket's session and format, once (backend/download-tickets.ts); absent: no downloads. */
  redeemTicket?: (ticket: string) => { sessionId: string; format: ExportFormat } | null;
  /** The built renderer (index.html and assets); null serves the API only. */
  staticDir: string | null;
  /** 0 or undefined picks a free port. */
  port?: number;
  /** Fixed token (tests); a random 256-bit one otherwise. */
  token?: string;
  /** Shorter limits for tests; the defaults are RECEIVE_LIMITS. */
  limits?: Partial<ReceiveLimits>;
}

/**
 * How long a client may take to send its request. Only the *receiving* is bounded: once a
 * request is in, answering it may take as long as the turn does.
 */
export interface ReceiveLimits {
  /** The request line and headers. */
  headersMs: number;
  /** The whole request, body included (must be at least headersMs). */
  requestMs: number;
  /** How often Node checks those two; a slow client is closed at most this much late. */
  checkEveryMs: number;
  /** Event-stream bytes waiting for a client that does not read before it is cut off. */
  maxUnreadEventBytes: number;
}

/** A client trickling its request (slowloris) is closed within 21 s. */
export const RECEIVE_LIMITS: ReceiveLimits = {
  headersMs: 10_000,
  requestMs: 20_000,
  checkEveryMs: 1_000,
  maxUnreadEventBytes: 4 * 1024 * 1024,
};

export interface BridgeServer {
  /** Open this in a browser: the token travels in the fragment, never to a server log. */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

const HEARTBEAT_MS = 15_000;

export async function startBridgeServer(options: BridgeServerOptions): Promise<BridgeServer> {
  const token = options.token ?? crypto.randomBytes(32).toString('base64url');
  const sockets = new Set<Socket>();
  const streams = new Set<http.ServerResponse>();
  let port = 0;
  const limits = { ...RECEIVE_LIMITS, ...options.limits };

  const server = http.createServer(
    { headersTimeout: limits.headersMs, requestTimeout: limits.requestMs, connectionsCheckingInterval: limits.checkEveryMs },
    (req, res) => {
      handle(req, res).catch((err) => {
        console.error('loom: request failed:', err);
        if (!res.headersSent) sendJson(res, 500, failure('internal', 'Unexpected server error.'));
        else res.destroy();
      });
    },
  );
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    setCommonHeaders(res);
    if (!hostAllowed(onlyHost(req), port)) return sendText(res, 403, 'Forbidden: unexpected Host header.');
    const url = originFormUrl(req.url, port);
    if (!url) return sendText(res, 400, 'Bad request: the target must be a path on this server.');
    const ticket = /^\/download\/([A-Za-z0-9_-]{1,100})$/.exec(url.pathname)?.[1];
    if (ticket !== undefined) return serveTicket(req, res, ticket);
    if (!url.pathname.startsWith('/api/')) return serveStatic(req, res, url.pathname);
    if (!originAllowed(req.headers.origin, port)) return sendJson(res, 403, failure('forbidden', 'Forbidden: foreign origin.'));
    if (!tokenMatches(req.headers[TOKEN_HEADER] as string | undefined, token)) {
      return sendJson(res, 401, failure('unauthorized', 'Missing or wrong access token: open the URL Loom printed.'));
    }
    res.setHeader('cache-control', 'no-store');
    if (url.pathname === '/api/events' && req.method === 'GET') return openEventStream(req, res);
    if (req.method !== 'POST') return sendJson(res, 405, failure('method_not_allowed', 'Use POST for API methods.'));
    return serveMethod(req, res, url.pathname.slice('/api/'.length));
  }

  async function serveMethod(req: http.IncomingMessage, res: http.ServerResponse, method: string): Promise<void> {
    if (!isMethodName(method)) return sendJson(res, 404, failure('unknown_method', `Unknown method: ${method.slice(0, 100)}.`));
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      return sendJson(res, 415, failure('bad_input', 'Send the input as application/json.'));
    }
    const body = await readBody(req, contract[method].maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    // The client went away (or was cut off for sending too slowly): nobody to answer.
    if (body === 'aborted') return;
    if (body === 'too_large') return sendJson(res, 413, failure('too_large', 'The request is too large.'));
    let input: unknown;
    try {
      input = body.length ? JSON.parse(body) : {};
    } catch {
      return sendJson(res, 400, failure('bad_input', 'The request body is not valid JSON.'));
    }
    const result = await dispatch(options.handlers, method, input);
    sendJson(res, statusFor(result), result);
  }

  function openEventStream(req: http.IncomingMessage, res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    res.write(': connected\n\n');
    streams.add(res);
    // A window that stops reading would make every event pile up here: past the cap it is
    // cut off, and the page's reconnect catches up from the store.
    const send = (text: string) => {
      if (res.destroyed) return;
      if (res.writableLength > limits.maxUnreadEventBytes) res.destroy();
      else res.write(text);
    };
    const unsubscribe = options.subscribe((event) => send(`data: ${JSON.stringify(event)}\n\n`));
    const heartbeat = setInterval(() => send(': ping\n\n'), HEARTBEAT_MS);
    req.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(res);
    });
  }

  /** The ticket is spent by this request whatever happens next: a link works once. */
  async function serveTicket(req: http.IncomingMessage, res: http.ServerResponse, ticket: string): Promise<void> {
    if (req.method !== 'GET') return sendText(res, 405, 'Method not allowed.');
    if (!originAllowed(req.headers.origin, port)) return sendText(res, 403, 'Forbidden: foreign origin.');
    res.setHeader('cache-control', 'no-store');
    const target = options.redeemTicket?.(ticket) ?? null;
    if (!target) return sendText(res, 404, 'This download link has expired or was already used: drag the session again.');
    const result = await dispatch(options.handlers, 'sessions.export', { id: target.sessionId, format: target.format });
    if (!result.ok) return sendJson(res, statusFor(result), result);
    const file = result.value as { filename: string; mimeType: string; text: string };
    res.writeHead(200, {
      'content-type': `${file.mimeType}; charset=utf-8`,
      'content-disposition': contentDisposition(file.filename),
    });
    res.end(file.text);
  }

  function serveStatic(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'Method not allowed.');
    const file = options.staticDir ? staticFile(options.staticDir, pathname) : null;
    if (!file) return sendText(res, 404, 'Not found.');
    res.writeHead(200, {
      'content-type': contentType(file),
      'cache-control': file.endsWith('index.html') ? 'no-store' : 'public, max-age=3600',
    });
    if (req.method === 'HEAD') return void res.end();
    fs.createReadStream(file).pipe(res);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/#token=${token}`,
    origin,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams) stream.end();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function setCommonHeaders(res: http.ServerResponse): void {
  res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY_HEADER);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
}

function hostAllowed(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/** The Host header, unless there are several (Node would keep the first; a proxy may pick another). */
function onlyHost(req: http.IncomingMessage): string | undefined {
  const hosts = req.headersDistinct.host;
  return hosts?.length === 1 ? hosts[0] : undefined;
}

function originAllowed(origin: string | undefined, port: number): boolean {
  return origin === undefined || origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
}

function tokenMatches(presented: string | null | undefined, token: string): boolean {
  if (!presented) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function statusFor(result: BridgeResult): number {
  if (result.ok) return 200;
  switch (result.error.code) {
    case 'bad_input':
      return 400;
    case 'unknown_method':
      return 404;
    case 'internal':
      return 500;
    case 'disk_full':
      return 507;
    default:
      return 422;
  }
}

/**
 * The request target as a URL on this server, or null: only the origin form (`/path?query`)
 * is accepted, not an absolute URL (`http://evil/`) or a scheme-relative one (`//evil`).
 */
function originFormUrl(target: string | undefined, port: number): URL | null {
  if (!target || !target.startsWith('/') || target.startsWith('//')) return null;
  try {
    return new URL(target, `http://127.0.0.1:${port}`);
  } catch {
    return null;
  }
}

function decodedOrNull(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * Reads the body; past the cap it keeps draining (so the client reads the 413) but keeps
 * nothing. A client that goes away first, or is cut off by requestTimeout, gives 'aborted'.
 */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the literals name the two sentinel results for the reader.
function readBody(req: http.IncomingMessage, maxBytes: number): Promise<string | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => resolve(size > maxBytes ? 'too_large' : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve('aborted'));
    req.on('close', () => resolve('aborted'));
  });
}

/** Resolves a URL path to a file inside the static folder, or null (no escaping it). */
function staticFile(root: string, pathname: string): string | null {
  let relative = decodedOrNull(pathname);
  if (relative === null) return null;
  if (relative === '/' || relative === '') relative = '/index.html';
  const base = path.resolve(root);
  const full = path.resolve(base, `.${relative}`);
  if (!full.startsWith(base + path.sep)) return null;
  try {
    return fs.statSync(full).isFile() ? full : null;
  } catch {
    return null;
  }
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

function contentType(file: string): string {
  return CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
}

function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(value));
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}
