/**
 * The backend's event fan-out: every window subscribes to the engine itself, so a window
 * whose listener throws cannot keep the event from the windows that subscribed after it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { BridgeEvent } from '../../src/shared/contract';
import { openBackend, type Backend } from '../../src/backend/backend';
import { dispatch } from '../../src/backend/dispatch';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';
import { nth } from '../support/elements';

let root: string;
let backend: Backend;
let reported: unknown[];

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-backend-events-'));
  const dataDir = path.join(root, 'data');
  backend = openBackend({ dataDir, settingsStore: new JsonFileSettingsStore(dataDir), shell: 'browser', projectDir: root, env: {} });
  reported = [];
});

afterEach(async () => {
  await backend.close();
  fs.rmSync(root, { recursive: true, force: true });
});

it('a throwing window does not starve the windows after it, and unsubscribing stops delivery', async () => {
  const stderr = process.stderr.write;
  process.stderr.write = (line: string) => (reported.push(line), true);
  try {
    const seen: BridgeEvent[] = [];
    backend.subscribe(() => {
      throw new Error('window gone');
    });
    const unsubscribe = backend.subscribe((event) => seen.push(event));
    const created = await dispatch(backend.handlers, 'chat.create', {});
    expect(created.ok).toBe(true);
    const made = nth(backend.store.list(), 0);
    expect(seen.some((event) => event.type === 'session_changed' && event.sessionId === made.id)).toBe(true);
    expect(reported.join('')).toContain('window gone');

    unsubscribe();
    const count = seen.length;
    await dispatch(backend.handlers, 'sessions.rename', { id: made.id, title: 'Renamed' });
    expect(seen.length).toBe(count);
  } finally {
    process.stderr.write = stderr;
  }
});
