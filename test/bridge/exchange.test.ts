/**
 * The contract side of exchange: chat.send's attachments are checked before any handler
 * runs, and download tickets are minted only by the browser mode's backend, named after
 * the session, for one redeem (docs/SECURITY.md#download-tickets).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBackend, type Backend } from '../../src/backend/backend';
import { dispatch } from '../../src/backend/dispatch';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';
import { startBridgeServer } from '../../src/server/http-server';
import { MAX_ATTACHMENTS, MAX_IMAGE_BYTES } from '../../src/shared/attachments';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/shared/contract';
import { PNG_1X1, dataUrl } from '../support/images';
import { recordingHandlers, request } from './helpers';

const roots: string[] = [];
const backends: Backend[] = [];
afterEach(async () => {
  await Promise.all(backends.splice(0).map((b) => b.close()));
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function backend(shell: 'browser' | 'desktop'): Backend {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-exchange-'));
  roots.push(root);
  const dataDir = path.join(root, 'data');
  const opened = openBackend({ dataDir, settingsStore: new JsonFileSettingsStore(dataDir), shell, projectDir: root, env: {} });
  backends.push(opened);
  return opened;
}

describe('chat.send input', () => {
  const { handlers, calls } = recordingHandlers();
  const send = (input: object) => dispatch(handlers, 'chat.send', { sessionId: 's1', ...input });

  it.each([
    ['no words and no files', { text: '  ' }, 'Invalid input for chat.send: text: Type a message first.'],
    [
      'an SVG image',
      { text: 'x', attachments: [{ kind: 'image', name: 'a.svg', dataUrl: dataUrl('image/svg+xml', Buffer.from('<svg/>')) }] },
      'Invalid input for chat.send: attachments.0.dataUrl: Images are attached as PNG, JPEG, GIF or WebP data URLs.',
    ],
    [
      'too many files',
      { text: 'x', attachments: Array.from({ length: MAX_ATTACHMENTS + 1 }, (_, i) => ({ kind: 'text', name: `f${i}.txt`, text: 'a' })) },
      `Invalid input for chat.send: attachments: A message can carry at most ${MAX_ATTACHMENTS} files.`,
    ],
    [
      'a file without a name',
      { text: 'x', attachments: [{ kind: 'text', name: ' ', text: 'a' }] },
      'Invalid input for chat.send: attachments.0.name: An attached file needs a name.',
    ],
  ])('refuses %s before any handler runs', async (_label, input, message) => {
    expect(await send(input)).toEqual({ ok: false, error: { code: 'bad_input', message } });
    expect(calls).toEqual([]);
  });
});

describe('sessions.downloadTicket', () => {
  it('mints a ticket named after the session in the browser mode, good for one redeem', async () => {
    const b = backend('browser');
    const meta = await b.engine.createSession();
    b.engine.rename(meta.id, 'Heron notes');
    const minted = await dispatch(b.handlers, 'sessions.downloadTicket', { id: meta.id, format: 'markdown' });
    expect(minted).toMatchObject({ ok: true, value: { filename: 'Heron notes.md', mimeType: 'text/markdown' } });
    const ticket = (minted as { value: { path: string } }).value.path.replace('/download/', '');
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.downloadTickets?.redeem(ticket)).toEqual({ sessionId: meta.id, format: 'markdown' });
    expect(b.downloadTickets?.redeem(ticket)).toBeNull();
  });

  it('is refused by the desktop app, which drags the file itself', async () => {
    const b = backend('desktop');
    const meta = await b.engine.createSession();
    expect(await dispatch(b.handlers, 'sessions.downloadTicket', { id: meta.id })).toEqual({
      ok: false,
      error: { code: 'unsupported', message: 'Download links are for the browser mode; the desktop app drags the file itself.' },
    });
    expect(b.downloadTickets).toBeNull();
  });

  it('mints nothing for an unknown session', async () => {
    const b = backend('browser');
    expect(await dispatch(b.handlers, 'sessions.downloadTicket', { id: 'nope' })).toEqual({
      ok: false,
      error: { code: 'unknown_session', message: 'No session matches "nope".' },
    });
  });
});

it('chat.send over HTTP takes an image at the size cap, far past the ordinary 1 MiB body cap', async () => {
  const { handlers, calls } = recordingHandlers({ 'chat.send': { error: null } });
  const server = await startBridgeServer({ handlers, subscribe: () => () => {}, staticDir: null, token: 't0ken' });
  try {
    const bigPng = Buffer.concat([PNG_1X1, Buffer.alloc(MAX_IMAGE_BYTES - PNG_1X1.length)]);
    const body = JSON.stringify({ sessionId: 's1', text: 'Look', attachments: [{ kind: 'image', name: 'big.png', dataUrl: dataUrl('image/png', bigPng) }] });
    expect(body.length).toBeGreaterThan(DEFAULT_MAX_BODY_BYTES * 6);
    const res = await request(server.port, {
      method: 'POST',
      path: '/api/chat.send',
      headers: { host: `127.0.0.1:${server.port}`, 'x-loom-token': 't0ken', 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(calls.map((c) => c.method)).toEqual(['chat.send']);
  } finally {
    await server.close();
  }
});
