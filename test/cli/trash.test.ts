/**
 * `loom --delete`, `--trash`, `--restore` and `--purge` end to end (docs/DESIGN.md#trash):
 * the built command against a real loom.db, checked by what it prints, its exit code and the rows.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/core/store/session-store';
import { buildLoom, expectOneErrorLine, makeTempDir, removeDir, runLoom } from './run-loom';

let dir: string;
const loom = (...args: string[]) => runLoom([...args, '--data-dir', dir]);
const DAY = 24 * 60 * 60 * 1000;

function withStore<T>(fn: (store: SessionStore) => T): T {
  const store = SessionStore.open(dir);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

function seed(title: string, word: string): string {
  return withStore((store) => store.create({ title, messages: [{ role: 'user', content: `notes on ${word}` }] }).id);
}

const rowCount = (id: string) => withStore((store) => store.db.prepare('SELECT count(*) FROM sessions WHERE id = ?').pluck().get(id));

beforeAll(buildLoom, 120_000);
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => removeDir(dir));

describe('the Trash on the command line', () => {
  it('--delete moves a session to the Trash: gone from --list-sessions and --search, listed by --trash, back with --restore', async () => {
    const id = seed('Zebra notes', 'zebras');
    const deleted = await loom('--delete', id.slice(0, 8), '--yes');
    expect(deleted).toMatchObject({ code: 0, stderr: '' });
    expect(deleted.stdout).toBe(`Deleted session ${id}; it stays in the Trash for 30 days (loom --restore ${id.slice(0, 8)} brings it back).\n`);
    expect((await loom('--list-sessions')).stdout).toBe('No sessions yet.\n');
    expect((await loom('--search', 'zebras')).stdout).toBe('No sessions match "zebras".\n');
    expect(rowCount(id)).toBe(1);

    const listed = await loom('--trash');
    expect(listed.stdout).toMatch(new RegExp(`^ID +TITLE +DELETED +PURGED\\n${id} +Zebra notes +just now +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\n$`));
    const [entry] = JSON.parse((await loom('--trash', '--json')).stdout);
    expect(entry).toMatchObject({ id, title: 'Zebra notes' });
    expect(Date.parse(entry.purge_at) - Date.parse(entry.deleted_at)).toBe(30 * DAY);

    expect(await loom('--restore', id.slice(0, 8))).toMatchObject({ code: 0, stdout: `Restored session ${id}.\n` });
    expect((await loom('--list-sessions')).stdout).toContain('Zebra notes');
    expect((await loom('--trash')).stdout).toBe('The Trash is empty.\n');
  });

  it('--purge without --yes refuses in one line and keeps the session; with --yes it deletes the rows', async () => {
    const id = seed('Lion notes', 'lions');
    await loom('--delete', id, '--yes');
    const refused = await loom('--purge', id);
    expect(refused.code).toBe(1);
    expect(expectOneErrorLine(refused)).toBe(`loom: Refusing to purge session ${id} without --yes; nothing was purged. Add --yes to confirm.`);
    expect(rowCount(id)).toBe(1);

    expect(await loom('--purge', id.slice(0, 8), '--yes')).toMatchObject({ code: 0, stdout: `Purged session ${id}.\n` });
    expect(rowCount(id)).toBe(0);
  });

  it('unknown ids: one clear line, exit 1, nothing changed; a live session is not in the Trash', async () => {
    const id = seed('Okapi notes', 'okapis');
    for (const args of [
      ['--restore', 'nope-nope'],
      ['--purge', 'nope-nope', '--yes'],
      ['--restore', id],
    ]) {
      const run = await loom(...args);
      expect(run.code).toBe(1);
      expect(expectOneErrorLine(run)).toBe(`loom: No session in the Trash matches "${args[1]}".`);
    }
    expect((await loom('--list-sessions')).stdout).toContain('Okapi notes');
  });

  it('--trash-days: what stayed longer is purged when the next command starts', async () => {
    const old = seed('Old notes', 'old');
    const young = seed('Young notes', 'young');
    withStore((store) => {
      store.trash(old, new Date(Date.now() - 3 * DAY));
      store.trash(young, new Date(Date.now() - 1 * DAY));
    });
    const listed = JSON.parse((await loom('--trash', '--json', '--trash-days', '2')).stdout) as { id: string }[];
    expect(listed.map((s) => s.id)).toEqual([young]);
    expect(rowCount(old)).toBe(0);
    expect((await loom('--trash-days', 'soon', '--trash')).stderr).toContain("--trash-days must be a positive whole number, got 'soon'.");
  });
});
