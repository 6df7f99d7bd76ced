/**
 * The Changed files of a session kept in the store (store/repositories/file-snapshots.ts):
 * another store on the same data folder (a restarted server) lists and reverts them; they
 * go with the session when it is purged, stay while it is in the Trash, and a fork starts
 * with none. A row naming anything but plain names below the project folder is ignored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSnapshots } from '../../src/core/security/snapshots';
import { SessionStore } from '../../src/core/store/session-store';
import { conversation, onCleanup, openStore, tempDir } from './helpers';

function setUp() {
  const root = fs.realpathSync(tempDir());
  const project = path.join(root, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'notes.txt'), 'the old text\n');
  const dataDir = path.join(root, 'data');
  const store = openStore(dataDir);
  const { id } = store.create({ messages: conversation('files') });
  return { root, project, dataDir, store, id, at: (name: string) => path.join(project, name) };
}

/** What a session's tools do: a snapshot before each write. */
async function write(snapshots: FileSnapshots, project: string, file: string, content: string): Promise<void> {
  await snapshots.snapshot(project, file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

const rowCount = (store: SessionStore) => (store.db.prepare('SELECT count(*) AS n FROM file_snapshots').get() as { n: number }).n;

describe('file snapshots in the store', () => {
  it('are listed and reverted by another store on the same data folder, as after a restart', async () => {
    const { project, dataDir, store, id, at } = setUp();
    const before = new FileSnapshots(store.fileOriginals(id));
    await write(before, project, at('notes.txt'), 'the new text\n');
    await write(before, project, at('made/created.txt'), 'brand new');
    await write(before, project, at('notes.txt'), 'newer still\n'); // the first snapshot is kept
    store.close();

    const restarted = SessionStore.open(dataDir);
    onCleanup(() => restarted.close());
    const after = new FileSnapshots(restarted.fileOriginals(id));
    expect(await after.changedFiles()).toEqual([at('made/created.txt'), at('notes.txt')]);
    expect(await after.revert()).toEqual({ reverted: [at('made/created.txt'), at('notes.txt')], leftAlone: [] });
    expect(fs.readFileSync(at('notes.txt'), 'utf8')).toBe('the old text\n');
    expect(fs.existsSync(path.join(project, 'made'))).toBe(false);
    expect(await after.changedFiles()).toEqual([]);
  });

  it('stay while the session is in the Trash, go when it is purged, and are not inherited by a fork', async () => {
    const { project, store, id, at } = setUp();
    await write(new FileSnapshots(store.fileOriginals(id)), project, at('notes.txt'), 'the new text\n');
    const fork = store.fork(id);
    expect(await new FileSnapshots(store.fileOriginals(fork.id)).changedFiles()).toEqual([]);

    store.trash(id);
    expect(rowCount(store)).toBe(1);
    store.restore(id);
    expect(await new FileSnapshots(store.fileOriginals(id)).changedFiles()).toEqual([at('notes.txt')]);
    store.trash(id);
    store.purge(id);
    expect(rowCount(store)).toBe(0);
  });

  it('ignores a row whose folders or name would lead out of the project folder', async () => {
    const { root, project, store, id, at } = setUp();
    const outside = path.join(root, 'outside.txt');
    fs.writeFileSync(outside, 'not the project’s');
    await write(new FileSnapshots(store.fileOriginals(id)), project, at('notes.txt'), 'the new text\n');
    // An edited database: the same row, pointed at a file beside the project folder.
    store.db.prepare(`UPDATE file_snapshots SET folders = '["..", "x"]', path = ?`).run(outside);
    store.db.prepare(`INSERT INTO file_snapshots SELECT session_pk, 'b', root, '[]', '..', content, mode, folders_existed FROM file_snapshots`).run();
    const snapshots = new FileSnapshots(store.fileOriginals(id));
    expect(await snapshots.changedFiles()).toEqual([]);
    expect(await snapshots.revert()).toEqual({ reverted: [], leftAlone: [] });
    expect(fs.readFileSync(outside, 'utf8')).toBe('not the project’s');
  });
});
