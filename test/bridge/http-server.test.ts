/**
 * The browser mode's server is reachable only by whoever holds the per-run token, only
 * under its own loopback host name, and never hands other sites CORS permission.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadTickets, TICKET_LIFETIME_MS } from '../../src/backend/download-tickets';
import type { BridgeEvent } from '../../src/shared/contract';
import { CONTENT_SECURITY_POLICY } from '../../src/shared/security-policy';
import { startBridgeServer, type BridgeServer } from '../../src/server/http-server';
import { recordingHandlers, request, type RawResponse } from './helpers';

const TOKEN = 'per-run-secret';
let server: BridgeServer;
let staticDir: string;
const listeners = new Set<(event: BridgeEvent) => void>();
let clock = 1_000_000;
const tickets = new DownloadTickets(() => clock);
const { handlers, calls } = recordingHandlers({
  'app.info': { name: 'Loom' },
  'sessions.export': { filename: 'My talk.json', mimeType: 'application/json', text: '{"format":"loom-session"}' },
});

beforeAll(async () => {
  staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-static-'));
  fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Loom</title>');
  fs.writeFileSync(path.join(path.dirname(staticDir), 'loom-secret-outside.txt'), 'outside');
  server = await startBridgeServer({
    handlers,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    staticDir,
    token: TOKEN,
    redeemTicket: (ticket) => tickets.redeem(ticket),
  });
});

afterAll(async () => {
  await server.close();
  fs.rmSync(staticDir, { recursive: true, force: true });
  fs.rmSync(path.join(path.dirname(staticDir), 'loom-secret-outside.txt'), { force: true });
});

const host = () => `127.0.0.1:${server.port}`;
const post = (pathName: string, headers: Record<string, string>, body = '{}') =>
  request(server.port, { method: 'POST', path: pathName, headers: { 'content-type': 'application/json', ...headers }, body });

function expectNoCors(res: RawResponse) {
  expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
}

describe('bridge server access control', () => {
  it('listens on loopback and prints a URL carrying the token in the fragment', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/#token=${TOKEN}`);
  });

  it('answers an API call with the token and the right Host', async () => {
    const res = await post('/api/app.info', { host: host(), 'x-loom-token': TOKEN });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: true, value: { name: 'Loom' } });
    const viaLocalhost = await post('/api/app.info', { host: `localhost:${server.port}`, 'x-loom-token': TOKEN });
    expect(viaLocalhost.status).toBe(200);
  });

  it('refuses API calls without the token or with a wrong one', async () => {
    const before = calls.length;
    for (const headers of [{ host: host() }, { host: host(), 'x-loom-token': 'guess' }, { host: host(), 'x-loom-token': '' }] as Record<string, string>[]) {
      const res = await post('/api/app.info', headers);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).error.message).toBe('Missing or wrong access token: open the URL Loom printed.');
      expectNoCors(res);
    }
    const events = await request(server.port, { path: '/api/events', headers: { host: host() } });
    expect(events.status).toBe(401);
    // The token is never taken from a URL, where logs and history would keep it.
    for (const inUrl of [`/api/app.info?token=${TOKEN}`, `/api/events?token=${TOKEN}`, `/api/download/abc?token=${TOKEN}`]) {
      const res = await request(server.port, { path: inUrl, headers: { host: host() } });
      expect(res.status, inUrl).toBe(401);
    }
    expect(calls.length).toBe(before);
  });

  it('refuses a foreign Host header even with the token (DNS rebinding)', async () => {
    for (const foreign of ['evil.example', `evil.example:${server.port}`, '127.0.0.1', `127.0.0.1:${server.port + 1}`, `[::1]:${server.port}`]) {
      const res = await post('/api/app.info', { host: foreign, 'x-loom-token': TOKEN });
      expect(res.status, foreign).toBe(403);
      const page = await request(server.port, { path: '/', headers: { host: foreign } });
      expect(page.status, foreign).toBe(403);
    }
  });

  it('refuses a foreign Origin and never sends CORS headers', async () => {
    const res = await post('/api/app.info', { host: host(), origin: 'https://evil.example', 'x-loom-token': TOKEN });
    expect(res.status).toBe(403);
    expectNoCors(res);
    const preflight = await request(server.port, {
      method: 'OPTIONS',
      path: '/api/app.info',
      headers: { host: host(), origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBeGreaterThanOrEqual(400);
    expectNoCors(preflight);
    const same = await post('/api/app.info', { host: host(), origin: `http://127.0.0.1:${server.port}`, 'x-loom-token': TOKEN });
    expect(same.status).toBe(200);
    expectNoCors(same);
  });

  it('refuses bodies that are not JSON, too large, or not declared as JSON', async () => {
    const auth = { host: host(), 'x-loom-token': TOKEN };
    const bad = await post('/api/app.info', auth, '{not json');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toBe('The request body is not valid JSON.');
    const big = await post('/api/sessions.search', auth, JSON.stringify({ query: 'x'.repeat(2 * 1024 * 1024) }));
    expect(big.status).toBe(413);
    const form = await request(server.port, {
      method: 'POST',
      path: '/api/app.info',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(form.status).toBe(415);
    const unknown = await post('/api/fs.read', auth);
    expect(unknown.status).toBe(404);
  });

  it('serves the page publicly, with the CSP, and nothing outside its folder', async () => {
    const page = await request(server.port, { path: '/', headers: { host: host() } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Loom</title>');
    expect(page.headers['content-security-policy']).toContain(CONTENT_SECURITY_POLICY);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expectNoCors(page);
    for (const escape of ['/../loom-secret-outside.txt', '/%2e%2e/loom-secret-outside.txt', '/..%2floom-secret-outside.txt']) {
      const res = await request(server.port, { path: escape, headers: { host: host() } });
      expect(res.status, escape).toBe(404);
      expect(res.body).not.toContain('outside');
    }
  });

  it('streams events to a token holder', async () => {
    const received = await new Promise<string>((resolve, reject) => {
      void import('node:http').then(({ default: http }) => {
        const req = http.get({ host: '127.0.0.1', port: server.port, path: '/api/events', headers: { host: host(), 'x-loom-token': TOKEN } }, (res) => {
          expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
            if (text.includes(': connected')) listeners.forEach((l) => l({ type: 'notice', sessionId: 's1', level: 'info', text: 'hello' }));
            if (text.includes('data: ')) {
              resolve(text);
              req.destroy();
            }
          });
        });
        req.on('error', reject);
      });
    });
    expect(received).toContain('data: {"type":"notice","sessionId":"s1","level":"info","text":"hello"}\n\n');
  });

  it('serves a download ticket once, as a named file, without the token', async () => {
    const ticket = tickets.mint({ sessionId: 'abc', format: 'markdown' });
    // The Host check comes first and does not spend the ticket.
    expect((await request(server.port, { path: `/download/${ticket}`, headers: { host: 'evil.example' } })).status).toBe(403);
    const res = await request(server.port, { path: `/download/${ticket}`, headers: { host: host() } });
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="My talk.json"; filename*=UTF-8''My%20talk.json`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toBe('{"format":"loom-session"}');
    expect(calls.at(-1)).toEqual({ method: 'sessions.export', input: { id: 'abc', format: 'markdown' } });
    const again = await request(server.port, { path: `/download/${ticket}`, headers: { host: host() } });
    expect(again.status).toBe(404);
    expect(again.body).toBe('This download link has expired or was already used: drag the session again.');
  });

  it('refuses a forged or an expired ticket', async () => {
    const before = calls.length;
    const forged = await request(server.port, { path: `/download/${'A'.repeat(43)}`, headers: { host: host() } });
    expect(forged.status).toBe(404);
    const ticket = tickets.mint({ sessionId: 'abc', format: 'json' });
    clock += TICKET_LIFETIME_MS;
    const expired = await request(server.port, { path: `/download/${ticket}`, headers: { host: host() } });
    expect(expired.status).toBe(404);
    expect(calls.length).toBe(before);
  });
});
