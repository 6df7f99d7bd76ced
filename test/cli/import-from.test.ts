/**
 * `loom --import-from` end to end: the built command against fixture folders laid out as
 * each tool lays out its own, a real loom.db, and what the user then sees through the other
 * lifecycle commands (search, --info, --export, --list-sessions).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  folderState,
  gooseDatabase,
  insertGooseSession,
  insertOpencodeSession,
  opencodeDatabase,
  otterSession,
  type OpencodeExport,
} from '../import/agent-stores';
import {
  CLAUDE_SESSION,
  GEMINI_SESSION,
  claudeBranch,
  claudeGrowth,
  claudeMain,
  claudeSidechain,
  codexRollout,
  geminiCheckpoint,
  geminiRecording,
  geminiSubAgent,
  jsonl,
  opencodeExport,
  piLinear,
  writeFile,
} from '../import/fixtures';
import { nth } from '../support/elements';
import { buildLoom, expectOneErrorLine, makeTempDir, removeDir, runLoom } from './run-loom';

let dir: string;
let home: string;
const loom = (...args: string[]) => runLoom([...args, '--data-dir', path.join(dir, 'data')], { env: { HOME: home } });

beforeAll(buildLoom, 120_000);
beforeEach(() => {
  dir = makeTempDir('loom-import-from-');
  home = path.join(dir, 'home');
  fs.mkdirSync(home);
});
afterEach(() => removeDir(dir));

/** Claude Code's layout under the temp home: one project folder with a session and a sub-agent file. */
function claudeProjects(): { root: string; file: string } {
  const root = path.join(home, '.claude', 'projects');
  const file = writeFile(path.join(root, '-home-ada-lexer', `${CLAUDE_SESSION}.jsonl`), jsonl([...claudeMain(), ...claudeBranch()]));
  writeFile(path.join(root, '-home-ada-lexer', 'agent-c0ffee01.jsonl'), jsonl(claudeSidechain()));
  return { root, file };
}

describe('loom --import-from', () => {
  it('imports from the default location, says which, refuses the malformed line with file:line, and changes none of the files', async () => {
    const { root, file } = claudeProjects();
    const before = fs.statSync(file);
    const run = await loom('--import-from', 'claude-code');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `Imported from claude-code (${root}, its default location): 2 files (2 new sessions, 0 grown, 1 new fork, 12 messages added); ` +
        'files skipped: 0 unchanged, 1 refused (listed above), 1 tool call without a result closed; not understood, skipped: claude-code entry type "future-entry-kind" ×1.\n',
    );
    expect(run.stderr).toBe(`loom: ${file}:8: not valid JSON, skipped\n`);
    const after = fs.statSync(file);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
  });

  it('a second import adds nothing; a grown session gets only its new messages', async () => {
    const { file } = claudeProjects();
    await loom('--import-from', 'claude-code');
    const listed = (await loom('--list-sessions')).stdout;

    const again = await loom('--import-from', 'claude-code');
    expect(again.stdout).toMatch(/: 2 files \(0 new sessions, 0 grown, 0 new forks, 0 messages added\); files skipped: 2 unchanged\.\n$/);
    expect(again.stderr).toBe('');
    expect((await loom('--list-sessions')).stdout).toBe(listed);

    fs.appendFileSync(file, jsonl(claudeGrowth()));
    const grown = await loom('--import-from', 'claude-code', path.dirname(file));
    expect(grown.stdout).toContain('(0 new sessions, 1 grown, 0 new forks, 2 messages added)');
  });

  it('search, --info, --export and --list-sessions reach the imported sessions', async () => {
    claudeProjects();
    await loom('--import-from', 'claude-code');
    const hits = JSON.parse((await loom('--search', 'zebra', '--json')).stdout) as { id: string; title: string; parent_id: string | null }[];
    const main = hits.find((hit) => hit.parent_id === null);
    expect(main?.title).toBe('Lexer zebra fix');
    const id = main?.id ?? '';

    const info = (await loom('--info', id)).stdout;
    expect(info).toMatch(/^Status: +saved$/m);
    expect(info).toMatch(/^Model: +claude-sonnet-4-5$/m);
    expect(info).toMatch(/^Folder: +\/home\/ada\/lexer$/m);
    expect(info).toMatch(/^Transcript: +7 messages$/m);
    expect(info).toMatch(/^Compactions: +1$/m);

    const exported = JSON.parse((await loom('--export', id)).stdout) as {
      session: { transcript: { role: string; content: string | null }[]; compactions: unknown[] };
    };
    expect(exported.session.transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'user', 'assistant']);
    expect(exported.session.compactions).toHaveLength(1);
    expect((await loom('--export', id, '--format', 'markdown')).stdout).toContain('Fixed: quoted zebra tokens are no longer skipped.');

    expect((await loom('--list-sessions')).stdout).toContain('Sub-agent c0ffee01: Explore the tokenizer tables');
  });

  it('pi and codex read their own default locations; a missing one is one clear line', async () => {
    writeFile(path.join(home, '.pi/agent/sessions/--home-ada-notes--/2025-11-20_x.jsonl'), jsonl(piLinear()));
    const pi = await loom('--import-from', 'pi');
    expect(pi.stdout).toContain(`Imported from pi (${path.join(home, '.pi/agent/sessions')}, its default location): 1 file (1 new session`);

    const codex = await loom('--import-from', 'codex');
    expect(codex.code).toBe(1);
    expect(expectOneErrorLine(codex)).toBe(`loom: Nothing to import: ${path.join(home, '.codex/sessions')} does not exist.`);

    // A folder with no session file of the source's is no import either: one line, nothing written.
    const before = fs.readdirSync(path.join(dir, 'data')).sort();
    fs.mkdirSync(path.join(home, '.codex/sessions'), { recursive: true });
    const empty = await loom('--import-from', 'codex');
    expect(empty.code).toBe(1);
    expect(expectOneErrorLine(empty)).toBe(`loom: Nothing to import: no codex session files in ${path.join(home, '.codex/sessions')}.`);
    expect(fs.readdirSync(path.join(dir, 'data')).sort()).toEqual(before);
  });

  it('gemini-cli reads ~/.gemini/tmp: recordings, a sub-agent naming its parent in --info, checkpoints; search and --export reach them', async () => {
    const tmp = path.join(home, '.gemini', 'tmp');
    writeFile(path.join(tmp, 'f3a1', 'chats', `session-2026-02-01T10-00-${GEMINI_SESSION.slice(0, 8)}.jsonl`), jsonl(geminiRecording()));
    writeFile(path.join(tmp, 'f3a1', 'chats', GEMINI_SESSION, 'heron-scout-1.jsonl'), jsonl(geminiSubAgent()));
    writeFile(path.join(tmp, 'f3a1', 'checkpoint-heron%20files.json'), JSON.stringify(geminiCheckpoint()));
    const run = await loom('--import-from', 'gemini-cli');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `Imported from gemini-cli (${tmp}, its default location): 3 files (3 new sessions, 0 grown, 1 new fork, 16 messages added); ` +
        'files skipped: 0 unchanged, 1 refused (listed above), 1 tool call without a result closed.\n',
    );

    const hits = JSON.parse((await loom('--search', 'heron', '--json')).stdout) as { id: string; title: string; parent_id: string | null }[];
    const main = hits.find((hit) => hit.title === 'Flaky heron test' && hit.parent_id === null);
    const scout = hits.find((hit) => hit.title === 'Sub-agent: Find every heron fixture');
    expect(hits.map((hit) => hit.title)).toContain('Saved chat heron files');
    expect((await loom('--info', scout?.id ?? '')).stdout).toMatch(new RegExp(`^Parent: +${main?.id}$`, 'm'));
    const info = (await loom('--info', main?.id ?? '')).stdout;
    expect(info).toMatch(/^Model: +gemini-2\.5-pro$/m);
    expect(info).toMatch(/^Created: +2026-02-01 /m);
    const exported = JSON.parse((await loom('--export', main?.id ?? '')).stdout) as { session: { transcript_facts: { at: string }[] } };
    expect(nth(exported.session.transcript_facts, 0).at).toBe('2026-02-01T10:00:01.000Z');
  });

  it('codex reads any *.jsonl that is a Codex session and counts the others in the summary line, not as refusals', async () => {
    const sessions = path.join(home, '.codex', 'sessions');
    writeFile(path.join(sessions, 'backup', 'walrus.jsonl'), jsonl(codexRollout()));
    writeFile(path.join(sessions, 'notes.jsonl'), jsonl([{ note: 'not a session' }]));
    writeFile(path.join(sessions, 'claude.jsonl'), jsonl(claudeMain()));
    const run = await loom('--import-from', 'codex');
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/: 3 files \(1 new session, 0 grown, 0 new forks, 5 messages added\); files skipped: 0 unchanged, 2 not Codex sessions, /);
  });

  it('refuses an unknown source and two PATHs, as usage mistakes', async () => {
    const unknown = await loom('--import-from', 'gemini');
    expect(unknown.code).toBe(2);
    expect(expectOneErrorLine(unknown)).toBe("loom: --import-from takes a source: claude-code, codex, gemini-cli, pi, opencode, goose; got 'gemini'.");

    const two = await loom('--import-from', 'pi', 'a', 'b');
    expect(two.code).toBe(2);
    expect(fs.existsSync(path.join(dir, 'data', 'loom.db'))).toBe(false);
  });

  it("reads opencode's and goose's databases where they keep them, no export needed; search, --info and --export reach the result", async () => {
    const opencodeData = path.join(home, '.local/share/opencode');
    const opencode = opencodeDatabase(path.join(opencodeData, 'opencode.db'));
    const session = opencodeExport() as OpencodeExport;
    nth(session.messages, 4).info.time = { created: 5 };
    insertOpencodeSession(opencode, session);
    opencode.close();
    const goose = gooseDatabase(path.join(home, '.local/share/goose/sessions/sessions.db'));
    insertGooseSession(goose, otterSession());
    goose.close();
    const before = folderState(home);

    const first = await loom('--import-from', 'opencode');
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(
      `Imported from opencode (${opencodeData}, its default location): 1 session from 1 database (1 new session, 0 grown, 1 new fork, 7 messages added); ` +
        'skipped: 0 unchanged, 1 tool call without a result closed; not understood, skipped: opencode part type "quantum-part" ×1.\n',
    );
    expect((await loom('--import-from', 'opencode')).stdout).toMatch(
      /: 1 session from 1 database \(0 new sessions, 0 grown, 0 new forks, 0 messages added\); skipped: 1 unchanged\.\n$/,
    );
    expect((await loom('--import-from', 'goose')).stdout).toMatch(
      /^Imported from goose \(.+, its default location\): 1 session from 1 database \(1 new session, /,
    );
    expect(folderState(home)).toEqual(before);

    const otter = nth(JSON.parse((await loom('--search', 'otters', '--json')).stdout) as { id: string; title: string }[], 0);
    expect(otter.title).toBe('Otter census');
    const info = (await loom('--info', otter.id)).stdout;
    expect(info).toMatch(/^Folder: +\/home\/ada\/river$/m);
    expect(info).toMatch(/^Transcript: +6 messages$/m);
    const exported = JSON.parse((await loom('--export', otter.id)).stdout) as { session: { transcript: { role: string }[] } };
    expect(exported.session.transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'assistant', 'tool']);
  });
});
