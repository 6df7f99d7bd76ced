/**
 * Salvage and the doctor's examination on real damaged files: exactly the rows on broken
 * pages are lost, nothing is made up, the copy is a consistent Loom database, and the
 * damaged file is only ever read.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { databasePath } from '../../src/core/store/db';
import { examineDatabase } from '../../src/core/store/doctor';
import { withReadOnlyView } from '../../src/core/store/read-only-view';
import { salvageDatabase } from '../../src/core/store/salvage';
import { SessionStore } from '../../src/core/store/session-store';
import { nth } from '../support/elements';
import { fillStore, leafPages, listing, rowidsByLeaf, sha256, smashPage } from './damage-helpers';
import { openStore, tempDir, user } from './helpers';

function messageRows(file: string): Map<number, string> {
  return withReadOnlyView(
    file,
    (db) => new Map((db.prepare('SELECT id, content FROM messages').all() as { id: number; content: string }[]).map((r) => [r.id, r.content])),
  );
}

/** The salvaged copy moved into a data folder of its own, opened as Loom opens it. */
function openCopy(copy: string): SessionStore {
  const dir = path.join(tempDir(), 'copy');
  fs.mkdirSync(dir);
  fs.renameSync(copy, databasePath(dir));
  return openStore(dir);
}

describe('salvaging a damaged loom.db', () => {
  it('loses exactly the rows on the broken pages (first, middle, last) and makes nothing up', () => {
    const dataDir = path.join(tempDir(), 'data');
    fillStore(dataDir, 40);
    const file = databasePath(dataDir);
    const original = messageRows(file);
    const leaves = [...rowidsByLeaf(file, 'messages')];
    const broken = [nth(leaves, 0), nth(leaves, Math.floor(leaves.length / 2)), nth(leaves, -1)];
    for (const [page] of broken) smashPage(file, page);
    const hash = sha256(file);

    const result = salvageDatabase(file);

    expect(sha256(file)).toBe(hash);
    const messages = result.tables.find((t) => t.table === 'messages')!;
    expect(messages.unreadable).toHaveLength(3);
    const lost = new Set(broken.flatMap(([, rowids]) => rowids));
    const saved = messageRows(result.file!);
    expect([...saved.keys()].sort((a, b) => a - b)).toEqual([...original.keys()].filter((id) => !lost.has(id)));
    for (const [id, content] of saved) expect(content).toBe(original.get(id));
    expect(listing(dataDir)).toEqual(['loom.db', path.basename(result.file!)]);
  });

  it('keeps the copy consistent: no transcript row without its message, indexes rebuilt, deletes work', () => {
    const dataDir = path.join(tempDir(), 'data');
    const ids = fillStore(dataDir, 20);
    const file = databasePath(dataDir);
    const leaves = [...rowidsByLeaf(file, 'messages')];
    smashPage(file, nth(leaves, Math.floor(leaves.length / 2))[0]);

    const result = salvageDatabase(file);
    const transcript = result.tables.find((t) => t.table === 'transcript')!;
    expect(transcript.orphans).toBeGreaterThan(0);
    const store = openCopy(result.file!);
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(store.db.pragma('foreign_key_check')).toEqual([]);
    expect(
      store
        .list()
        .map((s) => s.id)
        .sort(),
    ).toEqual([...ids].sort());
    // Every transcript reads, and the full-text index finds what was saved, even after a delete.
    for (const id of ids) store.getTranscript(id);
    for (const id of ids.slice(0, 10)) store.delete(id);
    expect(store.search('answered15').map((hit) => hit.id)).toEqual([ids[15]]);
    store.db.exec(`INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')`);
  });

  it("keeps a fork whose parent's session row is lost: its own messages and the shared ones still readable", () => {
    const dataDir = path.join(tempDir(), 'data');
    const ids = fillStore(dataDir, 40);
    const store = SessionStore.open(dataDir);
    const fork = store.fork(nth(ids, 0), 2).id;
    store.appendMessage(fork, user('only in the fork'));
    store.close();
    const file = databasePath(dataDir);
    const [firstLeaf, lastLeaf] = [nth(leafPages(file, 'sessions'), 0), nth(leafPages(file, 'sessions'), -1)];
    expect(firstLeaf).not.toBe(lastLeaf);
    smashPage(file, firstLeaf);

    const copy = openCopy(salvageDatabase(file).file!);
    expect(() => copy.getMeta(nth(ids, 0))).toThrow();
    expect(copy.getTranscript(fork).map((m) => (m.content ?? '').slice(0, 10))).toEqual(['You are Lo', 'Question 0', 'only in th']);
    expect(copy.getContext(fork)).toEqual(copy.getTranscript(fork));
    expect(copy.db.pragma('foreign_key_check')).toEqual([]);
  });

  it("steps over a broken page of a WITHOUT ROWID table (the transcript), keeping each session's readable start", () => {
    const dataDir = path.join(tempDir(), 'data');
    const store = SessionStore.open(dataDir);
    const ids = Array.from({ length: 12 }, (_, i) => store.create({ messages: Array.from({ length: 150 }, (_, n) => user(`s${i} m${n}`)) }).id);
    const original = new Map(ids.map((id) => [id, store.getTranscript(id)]));
    store.close();
    const file = databasePath(dataDir);
    const leaves = leafPages(file, 'transcript');
    expect(leaves.length).toBeGreaterThan(4);
    smashPage(file, nth(leaves, Math.floor(leaves.length / 2)));

    const result = salvageDatabase(file);
    expect(result.tables.find((t) => t.table === 'transcript')!.unreadable).toEqual([expect.stringMatching(/^rows between session_pk \d+ and \d+$/)]);
    const copy = openCopy(result.file!);
    const whole = ids.filter((id) => {
      const saved = copy.getTranscript(id);
      // What is kept is the start of the session's transcript, in order, never other rows.
      expect(saved).toEqual(original.get(id)!.slice(0, saved.length));
      return saved.length === original.get(id)!.length;
    });
    // A page holds the rows of up to three sessions (about 300 of the 150 per session).
    expect(whole.length).toBeGreaterThanOrEqual(ids.length - 3);
  });

  it('reads what is left of a file cut short', () => {
    const dataDir = path.join(tempDir(), 'data');
    const store = SessionStore.open(dataDir);
    // The sessions first, so their pages come early in the file and survive the cut;
    // each message spills onto overflow pages, the last of which are cut off.
    const ids = Array.from({ length: 20 }, (_, i) => store.create({ title: `Session ${i}` }).id);
    for (const id of ids) store.appendMessage(id, user('long '.repeat(1000)));
    store.close();
    const file = databasePath(dataDir);
    const lastMessagePage = withReadOnlyView(file, (db) => db.prepare(`SELECT max(pageno) FROM dbstat WHERE name = 'messages'`).pluck().get() as number);
    fs.truncateSync(file, (lastMessagePage - 1) * 4096);

    const report = examineDatabase(dataDir);
    expect(report).toMatchObject({ kind: 'damaged', problems: [expect.stringMatching(/^it is cut short: /), 'database disk image is malformed'] });
    const salvage = report.kind === 'damaged' ? report.salvage! : undefined;
    const messages = salvage!.tables.find((t) => t.table === 'messages')!;
    expect(messages.saved).toBeGreaterThanOrEqual(15);
    expect(messages.saved).toBeLessThan(20);
    expect(messages.unreadable.length).toBeGreaterThan(0);
    const copy = openCopy(salvage!.file!);
    expect(
      copy
        .list()
        .map((s) => s.id)
        .sort(),
    ).toEqual([...ids].sort());
  });
});

describe('examining a database', () => {
  it('reads sessions that live only in the -wal (left by a crash) without touching the -wal or making a -shm', () => {
    const live = openStore();
    live.create({ title: 'not yet checkpointed' });
    const dataDir = path.join(tempDir(), 'data');
    fs.mkdirSync(dataDir);
    const file = databasePath(dataDir);
    fs.copyFileSync(databasePath(live.dataDir), file);
    fs.copyFileSync(`${databasePath(live.dataDir)}-wal`, `${file}-wal`);
    const wal = sha256(`${file}-wal`);

    expect(examineDatabase(dataDir)).toEqual({ kind: 'healthy', file });
    expect(sha256(`${file}-wal`)).toBe(wal);
    expect(listing(dataDir)).toEqual(['loom.db', 'loom.db-wal']);
  });

  it("calls another program's database unusable, not damaged", () => {
    const dataDir = tempDir();
    const foreign = new Database(databasePath(dataDir));
    foreign.exec('CREATE TABLE notes (text TEXT)');
    foreign.close();
    expect(examineDatabase(dataDir)).toMatchObject({ kind: 'unusable', reason: expect.stringMatching(/is not a Loom session database/) });
  });

  it('reports an empty loom.db beside a -wal as damaged, with nothing salvaged and the -wal kept', () => {
    const dataDir = tempDir();
    const file = databasePath(dataDir);
    fs.writeFileSync(file, '');
    fs.writeFileSync(`${file}-wal`, Buffer.alloc(4096, 1));
    expect(examineDatabase(dataDir)).toEqual({ kind: 'damaged', file, problems: [expect.stringMatching(/is empty, but .*-wal beside it holds 4096 bytes/)] });
    expect(listing(dataDir)).toEqual(['loom.db', 'loom.db-wal']);
  });
});
