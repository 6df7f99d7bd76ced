/**
 * "Import from…" below the window (docs/DESIGN.md#importing-from-other-agents): the
 * sources and their default locations, the path's validation, an import's progress events
 * and its summary (the words `loom --import-from` prints), the other requests it lets run
 * between files, and the one line a bad location gets with nothing written. A real backend
 * (store, engine, handlers) through the dispatcher both transports use.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BridgeEvent, ImportReport, ImportSourceInfo } from '../../src/shared/contract';
import type { SessionMeta } from '../../src/shared/types';
import { dispatch } from '../../src/backend/dispatch';
import { CLAUDE_SESSION, branchyPi, claudeBranch, claudeMain, claudeSidechain, codexRollout, jsonl, writeFile } from '../import/fixtures';
import { nth } from '../support/elements';
import { useModelBackend } from './model-backend';

const ctx = useModelBackend();
const { call } = ctx;

/** A home folder of the test's own (the backend reads the default locations under os.homedir(), that is $HOME). */
function stubHome(): string {
  const home = path.join(ctx.projectDir, '..', 'home');
  fs.mkdirSync(home);
  vi.stubEnv('HOME', home);
  return home;
}

afterEach(() => void vi.unstubAllEnvs());

/** A Claude Code projects folder: a session with a rewind and a malformed line, and a sub-agent file. */
function claudeFolder(): { root: string; file: string } {
  const root = path.join(ctx.projectDir, '..', 'claude-projects');
  const file = writeFile(path.join(root, '-home-ada-lexer', `${CLAUDE_SESSION}.jsonl`), jsonl([...claudeMain(), ...claudeBranch()]));
  writeFile(path.join(root, '-home-ada-lexer', 'agent-c0ffee01.jsonl'), jsonl(claudeSidechain()));
  return { root, file };
}

function recordEvents(): BridgeEvent[] {
  const events: BridgeEvent[] = [];
  ctx.backend.subscribe((event) => events.push(event));
  return events;
}

const importedRows = () => ctx.backend.store.db.prepare('SELECT COUNT(*) AS n FROM import_files').get() as { n: number };

describe('sessions.importSources', () => {
  it('lists every source with its default location under the home folder', async () => {
    const home = stubHome();
    const sources = await call<ImportSourceInfo[]>('sessions.importSources', {});
    expect(sources.map((s) => [s.source, s.defaultLocation])).toEqual([
      ['claude-code', path.join(home, '.claude/projects')],
      ['codex', path.join(home, '.codex/sessions')],
      ['gemini-cli', path.join(home, '.gemini/tmp')],
      ['pi', path.join(home, '.pi/agent/sessions')],
      ['opencode', path.join(home, '.local/share/opencode')],
      ['goose', path.join(home, '.local/share/goose/sessions')],
    ]);
  });
});

describe('sessions.importFrom', () => {
  it('refuses bad input in one line, before anything is read', async () => {
    const { root } = claudeFolder();
    const bad = [
      {},
      { importId: 'i', source: 'claude-code', path: root, extra: 1 },
      { importId: '', source: 'claude-code', path: root },
      { importId: 'i', source: 'cursor', path: root },
      { importId: 'i', source: 'claude-code', path: '   ' },
      { importId: 'i', source: 'claude-code', path: `${root}\u0000/x` },
      { importId: 'i', source: 'claude-code', path: `/${'a'.repeat(4096)}` },
      { importId: 'i', source: 'claude-code', path: 42 },
    ];
    for (const input of bad) {
      expect(await dispatch(ctx.backend.handlers, 'sessions.importFrom', input)).toMatchObject({
        ok: false,
        error: { code: 'bad_input', message: expect.stringMatching(/^Invalid input for sessions\.importFrom: /) },
      });
    }
    expect(await dispatch(ctx.backend.handlers, 'sessions.importFrom', { importId: 'i', source: 'claude-code', path: `${root}\n` })).toMatchObject({
      ok: true,
    });
  });

  it('imports, announcing each file read and each session written, and ends with the summary the command prints', async () => {
    const { root, file } = claudeFolder();
    const events = recordEvents();
    const report = await call<ImportReport>('sessions.importFrom', { importId: 'imp-1', source: 'claude-code', path: root });

    expect(report).toEqual({
      refused: [`${file}:8: not valid JSON, skipped`],
      summary:
        `Imported from claude-code (${root}): 2 files (2 new sessions, 0 grown, 1 new fork, 12 messages added); ` +
        'files skipped: 0 unchanged, 1 refused (listed above), 1 tool call without a result closed; not understood, skipped: claude-code entry type "future-entry-kind" ×1.',
    });
    expect(events.filter((e) => e.type === 'import_progress')).toEqual([
      { type: 'import_progress', importId: 'imp-1', done: 1, total: 2 },
      { type: 'import_progress', importId: 'imp-1', done: 2, total: 2 },
    ]);
    const listed = ctx.backend.store.list();
    expect(listed.map((s) => s.title).sort()).toEqual(['Lexer zebra fix', 'Lexer zebra fix · fork at 5', 'Sub-agent c0ffee01: Explore the tokenizer tables']);
    const announced = events.flatMap((e) => (e.type === 'session_changed' ? [e.sessionId] : []));
    expect(new Set(announced)).toEqual(new Set(listed.map((s) => s.id)));

    const again = await call<ImportReport>('sessions.importFrom', { importId: 'imp-2', source: 'claude-code', path: root });
    expect(again.summary).toBe(
      `Imported from claude-code (${root}): 2 files (0 new sessions, 0 grown, 0 new forks, 0 messages added); files skipped: 2 unchanged.`,
    );
    expect(ctx.backend.store.list()).toHaveLength(3);
  });

  it('lets other requests run between files', async () => {
    const { root } = claudeFolder();
    let finished = false;
    const importing = call<ImportReport>('sessions.importFrom', { importId: 'imp', source: 'claude-code', path: root }).then(() => (finished = true));
    const listedMeanwhile = new Promise<boolean>((resolve) => setImmediate(() => void call<unknown>('sessions.list', {}).then(() => resolve(!finished))));
    expect(await listedMeanwhile).toBe(true);
    await importing;
  });

  it('answers other requests while a file with many branches is being written', async () => {
    // A pi session whose every turn was also answered on a side branch: 1,200 sessions to write.
    const file = writeFile(path.join(ctx.projectDir, '..', 'pi', 'many.jsonl'), jsonl(branchyPi(1200)));
    let importDone = false;
    const importing = call<ImportReport>('sessions.importFrom', { importId: 'many', source: 'pi', path: file }).finally(() => (importDone = true));
    const store = ctx.backend.store;
    let answeredWhileWriting = 0;
    while (!importDone) {
      await new Promise((resolve) => setImmediate(resolve));
      const { n } = store.db.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number };
      await call<unknown>('sessions.list', {});
      // Sessions of the file are committed and the import goes on: the file is being written.
      if (n > 0 && !importDone) answeredWhileWriting++;
    }

    expect(answeredWhileWriting).toBeGreaterThan(1);
    expect((await importing).summary).toContain('1 file (1 new session, 0 grown, 1199 new forks, 4798 messages added)');
  });

  it('answers other requests while a large folder is still being listed', async () => {
    // A home folder of many project folders and no session file: the import ends as soon as the listing does.
    const home = path.join(ctx.projectDir, '..', 'big-home');
    for (let a = 0; a < 40; a++) for (let b = 0; b < 25; b++) writeFile(path.join(home, `project-${a}`, `notes-${b}`, 'README.md'), 'notes\n');
    let importDone = false;
    const importing = dispatch(ctx.backend.handlers, 'sessions.importFrom', { importId: 'big', source: 'claude-code', path: home }).finally(
      () => (importDone = true),
    );
    let answeredWhileListing = 0;
    while (!importDone) {
      // Each request arrives in a turn of the event loop of its own, as one from a socket does.
      await new Promise((resolve) => setImmediate(resolve));
      await call<unknown>('sessions.list', {});
      if (!importDone) answeredWhileListing++;
    }

    expect(answeredWhileListing).toBeGreaterThan(0);
    expect(await importing).toMatchObject({ ok: false, error: { message: `Nothing to import: no claude-code session files in ${home}.` } });
  });

  it('finds a session file deep in a large folder', async () => {
    const home = path.join(ctx.projectDir, '..', 'big-home');
    for (let a = 0; a < 40; a++) for (let b = 0; b < 25; b++) fs.mkdirSync(path.join(home, `project-${a}`, `notes-${b}`), { recursive: true });
    const file = writeFile(path.join(home, 'project-39', 'notes-24', `${CLAUDE_SESSION}.jsonl`), jsonl(claudeMain()));
    const report = await call<ImportReport>('sessions.importFrom', { importId: 'big', source: 'claude-code', path: home });
    expect(report.summary).toMatch(/: 1 file \(1 new session/);
    expect(ctx.backend.store.db.prepare('SELECT path FROM import_files').all()).toEqual([{ path: file }]);
  });

  it('reads a path starting with ~ under the home folder, and refuses a relative one', async () => {
    const home = stubHome();
    const folder = path.join(home, 'exported');
    writeFile(path.join(folder, 'rollout-2025-12-01T09-00-00-x.jsonl'), jsonl(codexRollout()));
    const report = await call<ImportReport>('sessions.importFrom', { importId: 'i', source: 'codex', path: '~/exported' });
    expect(report.summary).toMatch(new RegExp(`^Imported from codex \\(${folder}\\): 1 file \\(1 new session`));
    expect(await dispatch(ctx.backend.handlers, 'sessions.importFrom', { importId: 'i', source: 'codex', path: 'sessions' })).toEqual({
      ok: false,
      error: { code: 'usage', message: 'Give the full path of the folder or file to import from (or one starting with ~/), not sessions.' },
    });
  });

  it('says in one line why nothing was imported: missing, empty, unreadable, not a folder; nothing is written', async () => {
    const root = path.join(ctx.projectDir, '..');
    const empty = path.join(root, 'empty');
    fs.mkdirSync(empty);
    const plainFile = writeFile(path.join(root, 'plain.txt'), 'hello\n');
    const fifo = path.join(root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const cases: [string, string][] = [
      [path.join(root, 'missing'), `Nothing to import: ${path.join(root, 'missing')} does not exist.`],
      [empty, `Nothing to import: no claude-code session files in ${empty}.`],
      [path.join(plainFile, 'x'), `Cannot read ${path.join(plainFile, 'x')}: a part of the path is a file, not a folder.`],
      [fifo, `Cannot import from ${fifo}: it is neither a file nor a folder.`],
    ];
    for (const [given, message] of cases) {
      const result = await dispatch(ctx.backend.handlers, 'sessions.importFrom', { importId: 'i', source: 'claude-code', path: given });
      expect(result).toMatchObject({ ok: false, error: { message } });
    }
    expect(ctx.backend.store.list()).toEqual([]);
    expect(importedRows().n).toBe(0);
  });

  it('leaves a session open here as it is: what the source gained since arrives as a fork', async () => {
    const folder = path.join(ctx.projectDir, '..', 'codex');
    const file = writeFile(path.join(folder, 'rollout-2025-12-01T09-00-00-x.jsonl'), jsonl(codexRollout()));
    await call<ImportReport>('sessions.importFrom', { importId: 'i', source: 'codex', path: folder });
    const imported = nth(ctx.backend.store.list(), 0);
    await ctx.backend.engine.openSession(imported.id);
    const transcript = ctx.backend.store.getTranscript(imported.id);

    const grown = {
      timestamp: '2025-12-01T09:20:00.000Z',
      type: 'response_item',
      payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Deployed.' }] },
    };
    fs.appendFileSync(file, jsonl([grown]));
    const report = await call<ImportReport>('sessions.importFrom', { importId: 'i', source: 'codex', path: folder });
    expect(report.summary).toContain('(0 new sessions, 0 grown, 1 new fork, 1 message added)');
    expect(ctx.backend.store.getTranscript(imported.id)).toEqual(transcript);
    const fork = nth(
      ctx.backend.store.list().filter((s: SessionMeta) => s.parent_id === imported.id),
      0,
    );
    expect(ctx.backend.store.getTranscript(fork.id).at(-1)).toMatchObject({ role: 'assistant', content: 'Deployed.' });
  });
});
