/**
 * The agents' own stores (docs/DESIGN.md#importing-from-other-agents): opencode.db and the
 * storage tree, goose's sessions.db, legacy JSONL and export, read from where each agent
 * keeps them, never changed (bytes and mtimes of every file compared), imported once,
 * grown, and refused in one line when a database is not one this Loom can read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFiles, runImport, type ImportLocation } from '../../src/core/import/run';
import { checkContext, NO_RESULT_ON_IMPORT } from '../../src/core/store/context-rules';
import type { SessionStore } from '../../src/core/store/session-store';
import { toolText, userText } from '../../src/shared/fences';
import type { ChatMessage } from '../../src/shared/types';
import { openStore, tempDir } from '../store/helpers';
import { nth } from '../support/elements';
import {
  agentDatabase,
  folderState,
  gooseCall,
  gooseDatabase,
  gooseExport,
  gooseLegacyJsonl,
  gooseMessages,
  gooseResult,
  gooseText,
  insertGooseMessage,
  insertGooseSession,
  insertOpencodeMessage,
  insertOpencodeSession,
  opencodeDatabase,
  otterSession,
  writeOpencodeStorage,
  type OpencodeExport,
} from './agent-stores';
import { opencodeExport, writeFile } from './fixtures';

const contents = (messages: ChatMessage[]) =>
  messages.map((m) => `${m.role}:${shownText(m)}${m.role === 'assistant' && m.tool_calls ? `+${m.tool_calls.map((c) => c.id).join(',')}` : ''}`);
const shownText = (m: ChatMessage) => (m.role === 'user' ? userText(m.content) : m.role === 'tool' ? toolText(m.content) : (m.content ?? ''));
const importInto = async (store: SessionStore, from: ImportLocation) => runImport(store, await importFiles(from));
const mainSession = (store: SessionStore) => store.list().find((s) => s.parent_id === null);

const BEAVER = [
  'user:Compute the beaver dam volume',
  'assistant:+call_calc,call_hang',
  'tool:42 m3',
  `tool:${NO_RESULT_ON_IMPORT}`,
  'assistant:The dam holds 42 m3.',
];

/** The export fixture, its first reply with the tokens and cost opencode counts per step. */
function beaver(): OpencodeExport {
  const session = opencodeExport() as OpencodeExport;
  nth(session.messages, 1).info.tokens = { input: 900, output: 40, reasoning: 10, cache: { read: 100, write: 0 } };
  nth(session.messages, 1).info.cost = 0.25;
  // opencode orders a session's rows by their creation time, which its ids follow.
  nth(session.messages, 4).info.time = { created: 5 };
  return session;
}

function expectValidContexts(store: SessionStore): void {
  for (const meta of store.list()) expect(checkContext(store.getContext(meta.id)).closedCalls).toBe(0);
}

describe('opencode.db', () => {
  it('reads the default location while opencode runs: rows still in the -wal included, no file touched, times, usage and model kept', async () => {
    const home = tempDir('loom-home-');
    const data = path.join(home, '.local/share/opencode');
    const running = opencodeDatabase(path.join(data, 'opencode.db'));
    running.pragma('wal_autocheckpoint = 0'); // as a busy agent leaves it: the rows live in the -wal
    insertOpencodeSession(running, beaver());
    fs.mkdirSync(path.join(data, 'snapshot', 'abc'), { recursive: true });
    writeFile(path.join(data, 'auth.json'), '{"anthropic": {"key": "sk-not-a-session"}}');
    expect(fs.statSync(path.join(data, 'opencode.db-wal')).size).toBeGreaterThan(0);
    const before = folderState(data);

    const store = openStore();
    const summary = await importInto(store, { source: 'opencode', home });
    expect(folderState(data)).toEqual(before);
    running.close();

    expect(summary).toMatchObject({ location: data, usedDefault: true, files: 0, databases: 1, databaseSessions: 1, refused: [] });
    expect(summary.counts).toMatchObject({ created: 1, forks: 1, closedCalls: 1 });
    const main = mainSession(store);
    expect(main).toMatchObject({ title: 'Beaver dam calculator', cwd: '/home/ada/dam', model: 'deepseek-v4-pro', created_at: '2026-01-05T12:00:00.000Z' });
    expect(contents(store.getTranscript(main?.id ?? ''))).toEqual(BEAVER);
    expect(store.getTranscriptFacts(main?.id ?? '').map((facts) => facts?.at)).toEqual([1, 2, 2, 2, 3].map((ms) => new Date(ms).toISOString()));
    expect(store.getUsage(main?.id ?? '')).toMatchObject({ prompt_tokens: 1000, completion_tokens: 50, cost_usd: 0.25 });
    // The reply keeps its model and the step's tokens in its facts, as the file importers' replies do.
    expect(store.getTranscriptFacts(main?.id ?? '')[1]).toMatchObject({ model: 'deepseek-v4-pro', prompt_tokens: 1000, completion_tokens: 50 });
    expect(nth(store.getCompactions(main?.id ?? ''), 0).summary).toBe('Summary: beaver dam is 42 m3.');
    expectValidContexts(store);
  });

  it('again adds nothing; a grown session gets its new messages; the same session exported beside it adds nothing', async () => {
    const home = tempDir('loom-home-');
    const file = path.join(home, '.local/share/opencode/opencode.db');
    const db = opencodeDatabase(file);
    const session = beaver();
    session.info.revert = undefined;
    insertOpencodeSession(db, session);
    const store = openStore();
    await importInto(store, { source: 'opencode', home });

    const again = await importInto(store, { source: 'opencode', home });
    expect(again).toMatchObject({ unchangedFiles: 1, counts: { created: 0, grown: 0, messages: 0 } });

    insertOpencodeMessage(db, 'ses_0000beaver', {
      info: { id: 'msg_08', role: 'user', time: { created: 8 } },
      parts: [{ id: 'prt_12', type: 'text', text: 'And in litres?' }],
    });
    db.close();
    const grown = await importInto(store, { source: 'opencode', home });
    expect(grown.counts).toMatchObject({ created: 0, grown: 1, messages: 1 });
    expect(contents(store.getTranscript(mainSession(store)?.id ?? '')).at(-1)).toBe('user:And in litres?');

    const exported = writeFile(path.join(tempDir(), 'beaver.json'), JSON.stringify(session));
    expect((await importInto(store, { source: 'opencode', path: exported, home })).counts).toMatchObject({ created: 0, grown: 0, messages: 0 });
    expect(store.list()).toHaveLength(1);
    expect(store.getUsage(mainSession(store)?.id ?? '').prompt_tokens).toBe(1000);
  });

  it('refuses a database that is not one, not opencode’s, or of a newer shape, in one line each; the rest goes on', async () => {
    const data = tempDir('loom-opencode-');
    writeFile(path.join(data, 'opencode.db'), 'SQLite format 3\0 but then garbage '.repeat(200));
    agentDatabase(path.join(data, 'opencode-foreign.db'), 'CREATE TABLE notes (id text);').close();
    agentDatabase(
      path.join(data, 'opencode-next.db'),
      'CREATE TABLE session (id text, title text, directory text, time_created integer, time_updated integer); CREATE TABLE message (id text, session_id text, time_created integer, time_updated integer, body text); CREATE TABLE part (id text);',
    ).close();
    const good = opencodeDatabase(path.join(data, 'opencode-dev.db'));
    insertOpencodeSession(good, beaver());
    good.prepare("UPDATE part SET data = '{not json' WHERE id = 'prt_6'").run();
    good.close();

    const store = openStore();
    const summary = await importInto(store, { source: 'opencode', path: data, home: tempDir() });
    // Each database is opened before any session is read: the refused ones are told first.
    expect(summary.refused).toEqual([
      `${path.join(data, 'opencode-foreign.db')}: not an opencode database this Loom can read (it has no table "session"), skipped`,
      `${path.join(data, 'opencode-next.db')}: not an opencode database this Loom can read (its table "message" has no column "data"), skipped`,
      `${path.join(data, 'opencode.db')}: could not be read as a database (file is not a database), skipped`,
      `${path.join(data, 'opencode-dev.db')}: table part, id prt_6: its data is not a JSON object, skipped`,
    ]);
    expect(summary.databases).toBe(1);
    expect(contents(store.getTranscript(mainSession(store)?.id ?? '')).slice(0, 4)).toEqual(BEAVER.slice(0, 4));
  });
});

describe('opencode storage tree', () => {
  it('reads the sessions of storage/ as an export of them, and again adds nothing', async () => {
    const data = tempDir('loom-opencode-');
    writeOpencodeStorage(path.join(data, 'storage'), beaver());
    const before = folderState(data);
    const store = openStore();
    const summary = await importInto(store, { source: 'opencode', path: data, home: tempDir() });
    expect(summary).toMatchObject({ files: 1, refused: [] });
    expect(contents(store.getTranscript(mainSession(store)?.id ?? ''))).toEqual(BEAVER);
    expect(folderState(data)).toEqual(before);

    const again = await importInto(store, { source: 'opencode', path: path.join(data, 'storage'), home: tempDir() });
    expect(again).toMatchObject({ unchangedFiles: 1, counts: { created: 0, messages: 0 } });
  });
});

describe('goose', () => {
  it('reads sessions.db where goose keeps it: a call paired with the result in the next message, the lost one closed, seconds kept', async () => {
    const home = tempDir('loom-home-');
    const folder = path.join(home, '.local/share/goose/sessions');
    const running = gooseDatabase(path.join(folder, 'sessions.db'));
    running.pragma('wal_autocheckpoint = 0');
    insertGooseSession(running, otterSession());
    const before = folderState(folder);
    const store = openStore();
    const summary = await importInto(store, { source: 'goose', home });
    expect(folderState(folder)).toEqual(before);
    running.close();

    expect(summary).toMatchObject({ usedDefault: true, databases: 1, databaseSessions: 1, refused: [] });
    const session = nth(store.list(), 0);
    expect(session).toMatchObject({
      title: 'Otter census',
      cwd: '/home/ada/river',
      created_at: '2026-02-03T09:00:00.000Z',
      updated_at: '2026-02-03T09:00:04.000Z',
    });
    expect(contents(store.getTranscript(session.id))).toEqual([
      'user:How many otters are in the river?',
      'assistant:Counting.+call_count',
      'tool:17 otters.txt',
      'assistant:There are 17 otters.',
      'assistant:+call_lost',
      `tool:${NO_RESULT_ON_IMPORT}`,
    ]);
    expect(store.getTranscriptFacts(session.id)[2]?.at).toBe('2026-02-03T09:00:02.000Z');
    expect(store.getUsage(session.id)).toMatchObject({ prompt_tokens: 1200, completion_tokens: 300 });
    expectValidContexts(store);
  });

  it('the legacy JSONL and the export of the same session add nothing more; a grown database session gets its new messages', async () => {
    const folder = tempDir('loom-goose-');
    const db = gooseDatabase(path.join(folder, 'sessions.db'));
    insertGooseSession(db, otterSession());
    writeFile(path.join(folder, '20260203_1.jsonl'), gooseLegacyJsonl(otterSession()));
    writeFile(path.join(folder, 'exported.json'), gooseExport(otterSession()));
    const store = openStore();
    const first = await importInto(store, { source: 'goose', path: folder, home: tempDir() });
    expect(first).toMatchObject({ files: 2, databases: 1, refused: [], counts: { created: 1, grown: 0 } });
    expect(store.list()).toHaveLength(1);

    insertGooseMessage(db, '20260203_1', { role: 'user', created: 1_770_109_300, content: [gooseText('And beavers?')] });
    db.prepare("UPDATE sessions SET updated_at = '2026-02-03 09:01:40'").run();
    db.close();
    const grown = await importInto(store, { source: 'goose', path: folder, home: tempDir() });
    expect(grown).toMatchObject({ unchangedFiles: 2, counts: { grown: 1, messages: 1 } });
    expect(contents(store.getTranscript(nth(store.list(), 0).id)).at(-1)).toBe('user:And beavers?');
  });

  it('a compaction: history the agent stopped seeing, then the summary only it sees', async () => {
    const hidden = { userVisible: true, agentVisible: false };
    const messages = gooseMessages()
      .slice(0, 4)
      .map((m) => ({ ...m, metadata: hidden }));
    messages.push(
      { role: 'user', created: 1_770_109_300, content: [gooseText('Otters were counted: 17.')], metadata: { userVisible: false, agentVisible: true } },
      { role: 'user', created: 1_770_109_301, content: [gooseText('Now the herons')], metadata: { userVisible: true, agentVisible: true } },
    );
    const file = writeFile(path.join(tempDir(), 'otters.json'), gooseExport(otterSession(messages)));
    const store = openStore();
    await importInto(store, { source: 'goose', path: file, home: tempDir() });
    const session = nth(store.list(), 0);
    expect(nth(store.getCompactions(session.id), 0).summary).toBe('Otters were counted: 17.');
    expect(contents(store.getContext(session.id)).slice(1)).toEqual(['user:Now the herons']);
    expect(store.getTranscript(session.id)).toHaveLength(5);
  });

  it('reads a pre-1.0 file (untagged content, no metadata line) and refuses a row that is not a message', async () => {
    const file = writeFile(
      path.join(tempDir(), 'old.jsonl'),
      [
        { role: 'user', created: 1_730_000_000, content: [{ text: 'list files' }] },
        { role: 'assistant', created: 1_730_000_001, content: [{ id: 'c1', tool_name: 'shell', arguments: { command: 'ls' } }] },
        { role: 'user', created: 1_730_000_002, content: [{ id: 'c1', tool_result: [{ type: 'text', text: 'a.txt' }] }] },
        { role: 'system', content: 'odd' },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const store = openStore();
    const summary = await importInto(store, { source: 'goose', path: file, home: tempDir() });
    expect(summary.refused).toEqual([`${file}:4: not a goose message ({"role", "content": […]}), skipped`]);
    expect(contents(store.getTranscript(nth(store.list(), 0).id))).toEqual(['user:list files', 'assistant:+c1', 'tool:a.txt']);
  });

  it('refuses a database row whose content is not JSON, with the table and id; a session so refused whole is read again until it is fixed', async () => {
    const file = path.join(tempDir(), 'sessions.db');
    const db = gooseDatabase(file);
    insertGooseSession(db, otterSession([{ role: 'user', created: 1, content: [gooseCall('x', 'y', {}), gooseResult('x', 'z')] }]));
    db.prepare("UPDATE messages SET content_json = '[oops' WHERE id = 1").run();
    const store = openStore();
    const refusal = [`${file}: table messages, id 1: its content_json is not a JSON list, skipped`];
    expect((await importInto(store, { source: 'goose', path: file, home: tempDir() })).refused).toEqual(refusal);
    // Not recorded: refused again rather than counted unchanged, though its stamp has not moved.
    expect(await importInto(store, { source: 'goose', path: file, home: tempDir() })).toMatchObject({ unchangedFiles: 0, refused: refusal });

    db.prepare('UPDATE messages SET content_json = ? WHERE id = 1').run(JSON.stringify([gooseText('fixed now')]));
    db.close();
    const fixed = await importInto(store, { source: 'goose', path: file, home: tempDir() });
    expect(fixed).toMatchObject({ refused: [], counts: { created: 1 } });
    expect(contents(store.getTranscript(nth(store.list(), 0).id))).toEqual(['user:fixed now']);
  });

  it('a result too long for any context is cut there and kept whole in the transcript; a row nested too deeply is refused alone', async () => {
    const file = path.join(tempDir(), 'sessions.db');
    const db = gooseDatabase(file);
    const long = 'otter '.repeat(10_000);
    const messages = gooseMessages().slice(0, 4);
    messages[2] = { ...nth(messages, 2), content: [gooseResult('call_count', long)] };
    insertGooseSession(db, otterSession(messages));
    const deep = `[{"type": "text", "text": "x", "deep": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]`;
    db.prepare("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20260203_1', 'user', ?, 1)").run(deep);
    db.close();
    const store = openStore();
    const summary = await importInto(store, { source: 'goose', path: file, home: tempDir() });
    expect(summary.refused).toEqual([`${file}: table messages, id 5: nested deeper than 256 levels, skipped`]);
    const session = nth(store.list(), 0);
    expect(toolText(nth(store.getTranscript(session.id), 2).content as string)).toBe(long);
    expect(toolText(nth(store.getContext(session.id), 2).content as string)).toMatch(
      /\[Cut on import: the first 32,768 of 60,000 characters; the transcript keeps the whole message\.\]$/,
    );
  });
});
