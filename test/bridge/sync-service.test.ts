/**
 * The backend's background sync (docs/DESIGN.md#background-sync-in-the-app) against a real
 * PostgreSQL hub (test/support/postgres.ts): off without a hub; with one, a sync on start
 * that every window hears as a status; another device's push pulled through NOTIFY and
 * announced to the windows; a refused password as one line without the password; a bad
 * hub URL refused by Save with nothing saved.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { openBackend, type Backend } from '../../src/backend/backend';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';
import type { BridgeEvent, SyncStatus } from '../../src/shared/contract';
import { parseHubUrl } from '../../src/core/sync/hub-connection';
import { initHub } from '../../src/core/sync/hub-init';
import { describeWithHub } from '../support/hub-suite';
import { startTestCluster, type TestCluster } from '../support/postgres';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

const PASSWORD = 'carol-pw-5be1';
const FAST = { debounceMs: 20, retryFirstMs: 100, retryMaxMs: 500, pollMs: 60_000 };

let cluster: TestCluster;
const opened: { backend: Backend; dir: string }[] = [];

beforeAll(async () => {
  cluster = await startTestCluster();
  await initHub(parseHubUrl(cluster.ownerUrl));
  await cluster.createUser('carol', PASSWORD);
}, 120_000);
afterAll(async () => cluster?.destroy());
afterEach(async () => {
  const all = opened.splice(0);
  await Promise.all(all.map(({ backend }) => backend.close()));
  for (const { dir } of all) fs.rmSync(dir, { recursive: true, force: true });
});

interface Device {
  backend: Backend;
  dataDir: string;
  events: BridgeEvent[];
}

/**
 * A backend on a fresh data folder (or `again`'s: the same device started again), its
 * settings holding `hubUrl` (none: sync off), hearing its events; `model`: its model server.
 */
function device(hubUrl?: string, options: { model?: ScriptedServer; again?: Device } = {}): Device {
  let dataDir = options.again?.dataDir;
  if (!dataDir) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-sync-service-'));
    dataDir = path.join(dir, 'data');
    const settingsStore = new JsonFileSettingsStore(dataDir);
    if (hubUrl) settingsStore.save({ hubUrl });
  }
  const { model } = options;
  const overrides = model ? { baseUrl: model.baseUrl, model: 'gemma4', apiKey: '' } : undefined;
  const settingsStore = new JsonFileSettingsStore(dataDir);
  const backend = openBackend({ dataDir, settingsStore, shell: 'browser', projectDir: path.dirname(dataDir), env: {}, syncTiming: FAST, overrides });
  opened.push({ backend, dir: path.dirname(dataDir) });
  const events: BridgeEvent[] = [];
  backend.subscribe((event) => events.push(event));
  return { backend, dataDir, events };
}

/** Resolves with the first event matching (already heard, or when it comes); fails after 10 s (a loaded machine; the poll is a minute away). */
function eventWhere(d: Device, match: (event: BridgeEvent) => boolean): Promise<BridgeEvent> {
  const heard = d.events.find(match);
  if (heard) return Promise.resolve(heard);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no such event; heard ${JSON.stringify(d.events.map((e) => (e.type === 'sync_status' ? e.status.line : e.type)))}`));
    }, 10_000);
    const off = d.backend.subscribe((event) => {
      if (!match(event)) return;
      clearTimeout(timer);
      off();
      resolve(event);
    });
  });
}

const statusIs = (state: SyncStatus['state']) => (event: BridgeEvent) => event.type === 'sync_status' && event.status.state === state;

describeWithHub('the background sync', () => {
  it('is off without a hub, and Sync now says so', async () => {
    const { backend } = device();
    expect(await backend.handlers['sync.status']({})).toEqual({ state: 'off', line: 'Sync is off: no hub is set.', queued: 0 });
    expect((await backend.handlers['sync.now']({})).state).toBe('off');
    const { id } = backend.store.create({ title: 'Private' });
    await expect(backend.handlers['sessions.share']({ id, team: 'core' })).rejects.toThrow(/Set a sync hub in Settings first/);
  });

  it('syncs on start; every window hears Synced, and the hub has the sessions', async () => {
    // A session saved before the hub was set: the first sync takes everything.
    const seed = device();
    const meta = seed.backend.store.create({ title: 'Before the hub', messages: [{ role: 'user', content: 'hello hub' }] });
    await seed.backend.handlers['settings.set']({ hubUrl: cluster.url('carol', PASSWORD) });
    const synced = await eventWhere(seed, statusIs('synced'));
    expect(synced.type === 'sync_status' && synced.status.line).toMatch(/^Synced \d\d:\d\d$/);
    expect(seed.events.some(statusIs('syncing'))).toBe(true);
    const rows = await cluster.admin('SELECT title FROM loom.sessions WHERE id = $1', [meta.id]);
    expect(rows.rows).toEqual([{ title: 'Before the hub' }]);
  });

  it("pulls each of another device's pushes when the hub announces it, and the windows hear every change", async () => {
    const url = cluster.url('carol', PASSWORD);
    const laptop = device(url);
    const desktop = device(url);
    await eventWhere(laptop, statusIs('synced'));
    await eventWhere(desktop, statusIs('synced'));

    const created = await laptop.backend.handlers['chat.create']({});
    // One after another: an announcement must not be lost to the pulled changes' own events arriving meanwhile.
    for (const title of ['Laptop 1', 'Laptop 2', 'Laptop 3', 'Laptop 4', 'Laptop 5']) {
      await laptop.backend.handlers['sessions.rename']({ id: created.id, title });
      const heard = await eventWhere(desktop, (e) => e.type === 'session_changed' && e.meta.title === title);
      expect(heard.type === 'session_changed' && heard.sessionId).toBe(created.id);
    }
    expect(desktop.backend.store.getMeta(created.id).title).toBe('Laptop 5');
  });

  it("leaves a session mid-turn here alone: another device's rename waits in the inbox, and lands once the turn has ended", async () => {
    const model = await startScriptedServer();
    try {
      const url = cluster.url('carol', PASSWORD);
      const laptop = device(url);
      const desktop = device(url, { model });
      await eventWhere(desktop, statusIs('synced'));
      const session = await desktop.backend.handlers['chat.create']({});
      model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'yes' } }] }, { text: 'Written.' }, { text: 'Writing' });
      const turn = desktop.backend.handlers['chat.send']({ sessionId: session.id, text: 'write it' });
      const approval = await eventWhere(desktop, (e) => e.type === 'approval');
      await desktop.backend.sync.syncNow();
      await laptop.backend.sync.syncNow();
      await laptop.backend.handlers['sessions.rename']({ id: session.id, title: 'Renamed on the laptop' });
      await laptop.backend.sync.syncNow();

      await desktop.backend.sync.syncNow(); // pulls the rename while the turn waits for its approval
      expect(desktop.backend.store.getMeta(session.id).title).toBeNull();
      const waiting = desktop.backend.store.db.prepare('SELECT COUNT(*) AS n FROM sync_inbox WHERE session_id = ?').get(session.id) as { n: number };
      expect(waiting.n).toBeGreaterThan(0);
      await desktop.backend.handlers['chat.approve']({ requestId: approval.type === 'approval' ? approval.requestId : '', answer: 'once' });
      expect(await turn).toEqual({ error: null });
      await eventWhere(desktop, (e) => e.type === 'session_changed' && e.meta.title === 'Renamed on the laptop');
    } finally {
      await model.close();
    }
  });

  it("brings another device's turn into a session open here between turns: the next turn's request carries it", async () => {
    const model = await startScriptedServer();
    try {
      const url = cluster.url('carol', PASSWORD);
      const laptop = device(url, { model });
      const desktop = device(url, { model });
      await eventWhere(desktop, statusIs('synced'));
      const session = await desktop.backend.handlers['chat.create']({});
      model.enqueue({ text: 'Herons wait.' }, { text: 'Herons' });
      await desktop.backend.handlers['chat.send']({ sessionId: session.id, text: 'tell me about herons' });
      await desktop.backend.sync.syncNow();
      await laptop.backend.sync.syncNow();

      model.enqueue({ text: 'Egrets too.' });
      await laptop.backend.handlers['chat.send']({ sessionId: session.id, text: 'and egrets?' });
      // The desktop holds the session open (its lease, from its turn): the laptop's turn still arrives, and its engine reads it.
      const count = laptop.backend.store.getMeta(session.id).message_count;
      await eventWhere(desktop, (e) => e.type === 'session_changed' && e.meta.message_count === count);

      model.enqueue({ text: 'Both wade.' });
      await desktop.backend.handlers['chat.send']({ sessionId: session.id, text: 'what do they share?' });
      const sent = model.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
      const said = sent.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
      expect(said).toContain('and egrets?');
      expect(said).toContain('Egrets too.');
      expect(desktop.backend.store.getTranscript(session.id).at(-1)).toMatchObject({ role: 'assistant', content: 'Both wade.' });
    } finally {
      await model.close();
    }
  });

  it("Sync now answers while another user holds the hub's clock: Hub busy, the change kept queued, synced once it is let go", async () => {
    const laptop = device(cluster.url('carol', PASSWORD));
    await eventWhere(laptop, statusIs('synced'));
    await cluster.createUser('mallory', 'mallory-pw');
    const holder = new pg.Client({ connectionString: cluster.url('mallory', 'mallory-pw') });
    await holder.connect();
    const meta = laptop.backend.store.create({ title: 'Held up', messages: [{ role: 'user', content: 'waiting for the clock' }] });
    try {
      await holder.query('BEGIN');
      await holder.query('UPDATE loom.clock SET seq = seq + 1 WHERE id = 1');
      const held = await laptop.backend.handlers['sync.now']({});
      expect(held).toMatchObject({
        state: 'offline',
        line: expect.stringMatching(/^Hub busy \(another connection holds a lock\): \d+ changes? queued$/) as string,
      });
      expect((await cluster.admin('SELECT count(*)::int AS n FROM loom.sessions WHERE id = $1', [meta.id])).rows[0]).toEqual({ n: 0 });
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect((await laptop.backend.handlers['sync.now']({})).state).toBe('synced');
    expect((await cluster.admin('SELECT title FROM loom.sessions WHERE id = $1', [meta.id])).rows).toEqual([{ title: 'Held up' }]);
  }, 60_000);

  it('a refused password is one error line without the password, and the hub is not asked again at once', async () => {
    const d = device(cluster.url('carol', 'not-the-password-77'));
    const failed = await eventWhere(d, statusIs('error'));
    const status = failed.type === 'sync_status' ? failed.status : null;
    expect(status?.line).toMatch(/refused the password for role carol/);
    expect(status?.line).not.toContain('not-the-password-77');
    expect(JSON.stringify(await d.backend.handlers['settings.get']({}))).not.toContain('not-the-password-77');
  });

  it('Save refuses a hub URL core/sync refuses, with its one line, and keeps the saved one', async () => {
    const url = cluster.url('carol', PASSWORD);
    const d = device(url);
    await expect(d.backend.handlers['settings.set']({ hubUrl: 'postgres://carol@hub.example.com/loom?sslmode=disable' })).rejects.toThrow(
      /not on this machine, so Loom needs TLS/,
    );
    expect(new JsonFileSettingsStore(d.dataDir).load().hubUrl).toBe(url);
  });
});
