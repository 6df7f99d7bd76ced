/**
 * The project folder at the command line (docs/DESIGN.md#the-project-folder): `--project DIR`
 * or the folder `loom` runs in starts a session there; a resumed session works in its own
 * folder, wherever `loom` runs; one whose folder is gone is refused, naming `--project DIR`,
 * which chooses another. Files on disk and the store's rows say what happened.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { announcedId, inStore, runLoom, useLoomFixture } from './support';

const SUMMARY = { text: 'Test session' };
const WRITE = ['--mode', 'acceptEdits'];
const write = (file: string, content: string) => ({ toolCalls: [{ name: 'write_file', arguments: { path: file, content } }] });

describe('the project folder (loom)', () => {
  const ctx = useLoomFixture();

  it('--project starts the session in that folder, and a resume works there again, not where loom runs', async () => {
    const { ws, server } = ctx;
    const other = path.join(ws.root, 'other');
    fs.mkdirSync(other);
    server.enqueue(write('first.txt', 'one'), { text: 'Written.' }, SUMMARY);
    const first = await runLoom(ws, server.baseUrl, ['-p', 'write it', '--project', other, ...WRITE]);
    expect(first.code).toBe(0);
    const id = announcedId(first.stderr);
    expect(first.stderr).toContain(`Session ${id} started in ${other}.`);
    expect(fs.readFileSync(path.join(other, 'first.txt'), 'utf8')).toBe('one');
    expect(fs.existsSync(path.join(ws.projectDir, 'first.txt'))).toBe(false);

    // loom runs in ws.projectDir; the session keeps its own folder.
    server.enqueue(write('second.txt', 'two'), { text: 'Written again.' }, SUMMARY);
    const again = await runLoom(ws, server.baseUrl, ['--resume', id, '-p', 'and again', ...WRITE]);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('was recorded in');
    expect(fs.readFileSync(path.join(other, 'second.txt'), 'utf8')).toBe('two');
    expect(fs.existsSync(path.join(ws.projectDir, 'second.txt'))).toBe(false);
    inStore(ws, (store) => expect(store.getMeta(id).project_dir).toBe(other));
  });

  it('a session whose folder is gone is refused, nothing run, until --project chooses another', async () => {
    const { ws, server } = ctx;
    const doomed = path.join(ws.root, 'doomed');
    fs.mkdirSync(doomed);
    server.enqueue({ text: 'Hello.' }, SUMMARY);
    const id = announcedId((await runLoom(ws, server.baseUrl, ['-p', 'hello', '--project', doomed])).stderr);
    fs.rmSync(doomed, { recursive: true });

    const requests = server.requests.length;
    const refused = await runLoom(ws, server.baseUrl, ['--resume', id, '-p', 'write it', ...WRITE]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `loom: This session's project folder ${doomed} is gone (deleted or moved); no tool runs until another is chosen. Choose one with: loom --resume ${id} --project DIR\n`,
    );
    expect(server.requests).toHaveLength(requests);
    inStore(ws, (store) => expect(store.getMeta(id).project_dir).toBe(doomed));

    const moved = path.join(ws.root, 'moved');
    fs.mkdirSync(moved);
    server.enqueue(write('here.txt', 'found'), { text: 'Written.' }, SUMMARY);
    const chosen = await runLoom(ws, server.baseUrl, ['--resume', id, '--project', moved, '-p', 'write it', ...WRITE]);
    expect(chosen.code).toBe(0);
    expect(fs.readFileSync(path.join(moved, 'here.txt'), 'utf8')).toBe('found');
    inStore(ws, (store) => expect(store.getMeta(id).project_dir).toBe(moved));
  });

  it('refuses, changing nothing, a --project that is not a folder, and another folder for a session that has begun', async () => {
    const { ws, server } = ctx;
    const missing = path.join(ws.root, 'nowhere');
    const none = await runLoom(ws, server.baseUrl, ['-p', 'hello', '--project', missing]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(`loom: The folder ${missing} does not exist.\n`);
    inStore(ws, (store) => expect(store.list({ includeArchived: true })).toEqual([]));

    server.enqueue({ text: 'Hello.' }, SUMMARY);
    const id = announcedId((await runLoom(ws, server.baseUrl, ['-p', 'hello'])).stderr);
    const elsewhere = path.join(ws.root, 'elsewhere');
    fs.mkdirSync(elsewhere);
    const fixed = await runLoom(ws, server.baseUrl, ['--resume', id, '--project', elsewhere, '-p', 'move']);
    expect(fixed.code).toBe(1);
    expect(fixed.stderr).toContain(
      `loom: This session's project folder is ${ws.projectDir}, fixed since its first message; start a new session for another folder.`,
    );
    inStore(ws, (store) => expect(store.getMeta(id).project_dir).toBe(ws.projectDir));
  });
});
