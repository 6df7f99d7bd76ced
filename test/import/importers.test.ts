/**
 * The importers end to end below the command line: fixture files in a temp folder laid out
 * as each tool lays out its own, runImport into a real SQLite store, and what the store
 * then holds (transcripts a strict server accepts, compactions, forks, dates, cwd).
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
  CLAUDE_SESSION,
  CODEX_THREAD,
  GEMINI_SESSION,
  PI_V3,
  branchyPi,
  claudeBranch,
  claudeGrowth,
  claudeMain,
  claudeSidechain,
  codexLegacyRollout,
  codexRollout,
  geminiCheckpoint,
  geminiRecording,
  geminiSubAgent,
  jsonl,
  opencodeExport,
  piEntry,
  piLinear,
  piTree,
  writeFile,
} from './fixtures';

/** Each message as the user reads it: Loom's data fences around prompts and tool results undone. */
const contents = (messages: ChatMessage[]) =>
  messages.map((m) => `${m.role}:${shownText(m)}${m.role === 'assistant' && m.tool_calls ? `+${m.tool_calls.map((c) => c.id).join(',')}` : ''}`);
const shownText = (m: ChatMessage) => (m.role === 'user' ? userText(m.content) : m.role === 'tool' ? toolText(m.content) : (m.content ?? ''));
const importInto = async (store: SessionStore, from: Omit<ImportLocation, 'home'>) => runImport(store, await importFiles({ home: tempDir(), ...from }));
const byTitle = (store: SessionStore, title: string) => store.list().filter((s) => s.title === title);
/** When each transcript message was written, as the store keeps it: the source's time, not the import's. */
const times = (store: SessionStore, id: string) => store.getTranscriptFacts(id).map((facts) => facts?.at);

function expectValidContexts(store: SessionStore): void {
  for (const meta of store.list()) expect(checkContext(store.getContext(meta.id)).closedCalls).toBe(0);
}

describe('claude-code', () => {
  function claudeFolder(extra: unknown[] = []): { root: string; file: string } {
    const root = tempDir('loom-claude-');
    const file = writeFile(path.join(root, '-home-ada-lexer', `${CLAUDE_SESSION}.jsonl`), jsonl([...claudeMain(), ...claudeBranch(), ...extra]));
    writeFile(path.join(root, '-home-ada-lexer', 'agent-c0ffee01.jsonl'), jsonl(claudeSidechain()));
    return { root, file };
  }

  it('imports the active line, the rewind as a fork at its message, the compaction and the sub-agent', async () => {
    const store = openStore();
    const { root, file } = claudeFolder();
    const summary = await importInto(store, { source: 'claude-code', path: root });

    expect(summary.counts).toMatchObject({ created: 2, forks: 1, grown: 0, closedCalls: 1 });
    expect(summary.refused).toEqual([`${file}:8: not valid JSON, skipped`]);
    expect([...summary.notUnderstood]).toEqual([['claude-code entry type "future-entry-kind"', 1]]);

    const main = nth(
      byTitle(store, 'Lexer zebra fix').filter((s) => s.parent_id === null),
      0,
    );
    expect(main).toMatchObject({
      cwd: '/home/ada/lexer',
      model: 'claude-sonnet-4-5',
      created_at: '2025-11-20T10:00:00.000Z',
      updated_at: '2025-11-20T10:00:31.000Z',
    });
    expect(contents(store.getTranscript(main.id))).toEqual([
      'user:Fix the zebra token bug in lexer.ts',
      'assistant:Let me look at the lexer.+toolu_read,toolu_test',
      'tool:export function lex() {}',
      'tool:Error: 1 failing',
      'assistant:Fixed: quoted zebra tokens are no longer skipped.',
      'user:Now add a regression test',
      'assistant:Added test/lexer.test.ts.',
    ]);
    // A response written over several lines is as old as its first.
    expect(times(store, main.id)).toEqual(['00:00', '00:01', '00:04', '00:05', '00:06', '00:30', '00:31'].map((t) => `2025-11-20T10:${t}.000Z`));
    expect(store.getTranscriptFacts(main.id)[1]?.model).toBe('claude-sonnet-4-5');
    expect(store.getCompactions(main.id)).toEqual([
      expect.objectContaining({ summary: 'Summary: the lexer skipped quoted zebra tokens; fixed in lex().', before_tokens: 42000, transcript_index: 5 }),
    ]);
    const context = store.getContext(main.id);
    expect(nth(context, 0).content).toContain('Summary: the lexer skipped quoted zebra tokens');
    expect(contents(context.slice(1))).toEqual(['user:Now add a regression test', 'assistant:Added test/lexer.test.ts.']);

    const branch = nth(
      store.branchesAt(main.id, 5).filter((s) => s.id !== main.id),
      0,
    );
    expect(branch.parent_id).toBe(main.id);
    expect(contents(store.getTranscript(branch.id).slice(5))).toEqual([
      'user:Actually, rename the function instead',
      'assistant:+toolu_edit',
      `tool:${NO_RESULT_ON_IMPORT}`,
    ]);
    // The result closing a call without one is as old as the call.
    expect(times(store, branch.id).slice(5)).toEqual(['10', '11', '11'].map((t) => `2025-11-20T10:00:${t}.000Z`));

    expect(store.list().map((s) => s.title)).toContain('Sub-agent c0ffee01: Explore the tokenizer tables');
    expectValidContexts(store);
  });

  it('imports each sub-agent as a session of its own whose parent is the session that started it, never into it', async () => {
    const store = openStore();
    // A session id sorting after "agent-": the sub-agent files are still imported after it.
    const late = 'f0000000-1111-4a2b-9c3d-000000000009';
    const ofLate = (entries: unknown[]) => jsonl(entries).replaceAll(CLAUDE_SESSION, late);
    const project = path.join(tempDir('loom-claude-'), '-home-ada-lexer');
    writeFile(path.join(project, `${late}.jsonl`), ofLate(claudeMain()));
    writeFile(path.join(project, 'agent-c0ffee01.jsonl'), ofLate(claudeSidechain()));
    writeFile(path.join(project, late, 'subagents', 'agent-a4ca7529859c158c2.jsonl'), ofLate(claudeSidechain('a4ca7529859c158c2')));
    const summary = await importInto(store, { source: 'claude-code', path: path.dirname(project) });
    expect(summary.counts.created).toBe(3);

    const main = nth(byTitle(store, 'Lexer zebra fix'), 0);
    expect(contents(store.getTranscript(main.id))).not.toContain('user:Explore the tokenizer tables');
    const subAgents = store.list().filter((s) => s.title?.startsWith('Sub-agent '));
    expect(subAgents.map((s) => [s.title, s.parent_id]).sort()).toEqual([
      ['Sub-agent a4ca7529859c158c2: Explore the tokenizer tables', main.id],
      ['Sub-agent c0ffee01: Explore the tokenizer tables', main.id],
    ]);
    expect(contents(store.getTranscript(nth(subAgents, 0).id))).toEqual(['user:Explore the tokenizer tables', 'assistant:The tables live in tables.ts.']);
    expect(
      store
        .family(main.id)
        .children.map((s) => s.id)
        .sort(),
    ).toEqual(subAgents.map((s) => s.id).sort());
  });

  it('adds nothing the second time, appends what the session gained, and forks a branch that appeared', async () => {
    const store = openStore();
    const { root, file } = claudeFolder();
    await importInto(store, { source: 'claude-code', path: root });
    const before = store.list().map((s) => [s.id, s.message_count]);

    const again = await importInto(store, { source: 'claude-code', path: root });
    expect(again.unchangedFiles).toBe(2);
    expect(again.counts).toMatchObject({ created: 0, grown: 0, forks: 0, messages: 0 });
    expect(store.list().map((s) => [s.id, s.message_count])).toEqual(before);

    // Same bytes, new mtime: read and hashed, not written again.
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect((await importInto(store, { source: 'claude-code', path: root })).counts.messages).toBe(0);

    fs.appendFileSync(file, jsonl(claudeGrowth()));
    const grown = await importInto(store, { source: 'claude-code', path: root });
    expect(grown.counts).toMatchObject({ created: 0, grown: 1, forks: 0, messages: 2 });
    const main = nth(
      byTitle(store, 'Lexer zebra fix').filter((s) => s.parent_id === null),
      0,
    );
    expect(contents(store.getTranscript(main.id).slice(-2))).toEqual(['user:Run the whole suite once more', 'assistant:All 212 tests pass.']);
    expect(store.list()).toHaveLength(before.length);
  });

  it('forks instead of appending when the user went on with the imported session in Loom', async () => {
    const store = openStore();
    const { root, file } = claudeFolder();
    await importInto(store, { source: 'claude-code', path: root });
    const main = nth(
      byTitle(store, 'Lexer zebra fix').filter((s) => s.parent_id === null),
      0,
    );
    store.appendMessage(main.id, { role: 'user', content: 'my own follow-up in Loom' });

    fs.appendFileSync(file, jsonl(claudeGrowth()));
    const summary = await importInto(store, { source: 'claude-code', path: root });
    expect(summary.counts).toMatchObject({ grown: 0, forks: 1, messages: 2 });
    expect(store.getTranscript(main.id).at(-1)?.content).toBe('my own follow-up in Loom');
  });
});

describe('a session another process works in', () => {
  it('is not appended to: the file is reported, and the next import brings the session up to date', async () => {
    const store = openStore();
    const other = openStore(store.dataDir);
    const root = tempDir('loom-claude-');
    const file = writeFile(path.join(root, 'p', `${CLAUDE_SESSION}.jsonl`), jsonl(claudeMain()));
    await importInto(store, { source: 'claude-code', path: root });
    const main = nth(store.list(), 0);
    const lease = other.acquireLease(main.id, 'another-window');

    fs.appendFileSync(file, jsonl(claudeGrowth()));
    const held = await importInto(store, { source: 'claude-code', path: root });
    expect(held.refused.at(-1)).toBe(`${file}: Session ${main.id} is in use by pid ${process.pid}. Skipped; import again later.`);
    expect(store.getMeta(main.id).message_count).toBe(main.message_count);

    lease.release();
    expect((await importInto(store, { source: 'claude-code', path: root })).counts).toMatchObject({ grown: 1, messages: 2 });
    expect(store.list()).toHaveLength(1);
  });
});

describe('codex', () => {
  it('reads a rollout: injected context left out, calls joined to their message, the unanswered one closed, the compaction', async () => {
    const store = openStore();
    const root = tempDir('loom-codex-');
    const file = writeFile(path.join(root, '2025/12/01', `rollout-2025-12-01T10-00-00-${CODEX_THREAD}.jsonl`), jsonl(codexRollout()));
    writeFile(path.join(root, '2025/12/01', 'notes.jsonl'), 'not a rollout\n');
    const summary = await importInto(store, { source: 'codex', path: root });
    expect(summary).toMatchObject({ files: 2, notSessions: 1, refused: [] });
    expect([...summary.notUnderstood]).toEqual([['codex line type "a_future_line_type"', 1]]);
    const session = nth(store.list(), 0);
    expect(session).toMatchObject({ title: 'Walrus 500s', cwd: '/home/ada/api', model: 'gpt-5.2-codex', created_at: '2025-12-01T09:00:00.000Z' });
    expect(contents(store.getTranscript(session.id))).toEqual([
      'user:Why does the walrus endpoint return 500?',
      'assistant:Checking the handler.+call_grep,call_patch',
      'tool:src/walrus.ts:3: throw',
      `tool:${NO_RESULT_ON_IMPORT}`,
      'assistant:The walrus handler now accepts empty bodies.',
    ]);
    expect(times(store, session.id)).toEqual(['03', '05', '08', '05', '11'].map((t) => `2025-12-01T09:00:${t}.000Z`));
    expect(store.getTranscriptFacts(session.id)[1]?.model).toBe('gpt-5.2-codex');
    expect(store.getCompactions(session.id)[0]).toMatchObject({ summary: 'Summary: the walrus handler throws on empty bodies.', transcript_index: 4 });
    expect(
      JSON.parse(
        nth(store.getTranscript(session.id), 1).role === 'assistant'
          ? nth((store.getTranscript(session.id)[1] as { tool_calls: { function: { arguments: string } }[] }).tool_calls, 1).function.arguments
          : '{}',
      ),
    ).toEqual({ input: '*** Begin Patch' });
    expect(fs.readFileSync(file, 'utf8')).toBe(jsonl(codexRollout()));
    expectValidContexts(store);
  });

  it('reads any *.jsonl whose first line is a Codex header, and counts the others in one place instead of refusing each', async () => {
    const store = openStore();
    const root = tempDir('loom-codex-');
    writeFile(path.join(root, 'kept', 'walrus copy.jsonl'), jsonl(codexRollout()));
    writeFile(path.join(root, 'kept', 'pelican.jsonl'), jsonl(codexLegacyRollout()));
    writeFile(path.join(root, 'claude.jsonl'), jsonl(claudeMain()));
    writeFile(path.join(root, 'half.jsonl'), '{"timestamp":"2025-12-01T09:00:00.000Z","type":"session_meta","payl');
    const summary = await importInto(store, { source: 'codex', path: root });
    expect(summary).toMatchObject({ files: 4, notSessions: 2, refused: [], counts: expect.objectContaining({ created: 2 }) });
    expect(store.list().map((s) => s.title)).toEqual(expect.arrayContaining(['Walrus 500s', 'List the pelican files']));
    // Not recorded as imported: a file that becomes a session later is read then.
    expect((await importInto(store, { source: 'codex', path: root })).notSessions).toBe(2);
  });

  it('reads the legacy layout without the line wrapper', async () => {
    const store = openStore();
    const file = writeFile(path.join(tempDir(), 'rollout-2025-04-01-0190aaaa-bbbb-7ccc-8ddd-000000000003.jsonl'), jsonl(codexLegacyRollout()));
    await importInto(store, { source: 'codex', path: file });
    const session = nth(store.list(), 0);
    expect(session.created_at).toBe('2025-04-01T08:00:00.000Z');
    expect(contents(store.getTranscript(session.id))).toEqual(['user:List the pelican files', 'assistant:+call_ls', 'tool:pelican.txt']);
  });
});

describe('gemini-cli', () => {
  /** ~/.gemini/tmp as Gemini CLI lays it out: a project folder with its chats, a sub-agent's under its parent, a checkpoint. */
  function geminiTmp(): { root: string; recording: string; checkpoint: string } {
    const root = tempDir('loom-gemini-');
    const project = path.join(root, 'f3a1');
    const recording = writeFile(path.join(project, 'chats', `session-2026-02-01T10-00-${GEMINI_SESSION.slice(0, 8)}.jsonl`), jsonl(geminiRecording()));
    writeFile(path.join(project, 'chats', GEMINI_SESSION, 'heron-scout-1.jsonl'), jsonl(geminiSubAgent()));
    const checkpoint = writeFile(path.join(project, 'checkpoint-heron%20files.json'), JSON.stringify(geminiCheckpoint(), null, 2));
    writeFile(path.join(project, 'logs.json'), '[]');
    return { root, recording, checkpoint };
  }

  it('reads a recording: the last version of each message, calls with their results, the rewound turn a fork, tokens and times', async () => {
    const store = openStore();
    const { root, recording } = geminiTmp();
    const summary = await importInto(store, { source: 'gemini-cli', path: root });
    expect(summary).toMatchObject({ files: 3, refused: [`${recording}:13: not valid JSON, skipped`] });
    expect(summary.counts).toMatchObject({ created: 3, forks: 1, closedCalls: 1 });

    const main = nth(
      byTitle(store, 'Flaky heron test').filter((s) => s.parent_id === null),
      0,
    );
    expect(main).toMatchObject({ model: 'gemini-2.5-pro', cwd: null, created_at: '2026-02-01T10:00:00.000Z', updated_at: '2026-02-01T10:02:05.000Z' });
    expect(contents(store.getTranscript(main.id))).toEqual([
      'user:Why is the heron test flaky?',
      'assistant:Let me run it.+call_run,call_read',
      'tool:1 failing',
      `tool:${NO_RESULT_ON_IMPORT}`,
      'assistant:The heron test races the clock.',
      'user:Just retry it instead',
      'assistant:Retries added.',
    ]);
    expect(store.getTranscriptFacts(main.id)[1]).toEqual({
      at: '2026-02-01T10:00:02.000Z',
      model: 'gemini-2.5-pro',
      prompt_tokens: 1200,
      completion_tokens: 80,
    });
    expect(times(store, main.id).slice(2)).toEqual(['00:03', '00:02', '00:05', '02:00', '02:05'].map((t) => `2026-02-01T10:${t}.000Z`));

    const rewound = nth(
      store.branchesAt(main.id, 5).filter((s) => s.id !== main.id),
      0,
    );
    expect(contents(store.getTranscript(rewound.id).slice(5))).toEqual(['user:Fix it with fake timers', 'assistant:Done with fake timers.']);

    const scout = nth(byTitle(store, 'Sub-agent: Find every heron fixture'), 0);
    expect(scout.parent_id).toBe(main.id);
    expect(contents(store.getTranscript(scout.id))).toEqual(['user:Find every heron fixture', 'assistant:Three fixtures.']);
    expectValidContexts(store);
  });

  it('reads a /chat save checkpoint: setup context left out, responses without ids paired by name and order, the file time', async () => {
    const store = openStore();
    const { checkpoint } = geminiTmp();
    const modified = new Date('2026-02-02T08:30:00.000Z');
    fs.utimesSync(checkpoint, modified, modified);
    await importInto(store, { source: 'gemini-cli', path: checkpoint });
    const saved = nth(store.list(), 0);
    expect(saved).toMatchObject({ title: 'Saved chat heron files', created_at: modified.toISOString(), updated_at: modified.toISOString() });
    const transcript = store.getTranscript(saved.id);
    expect(contents(transcript).map((line) => line.replace(/\+.*/, '+calls'))).toEqual([
      'user:List the heron files',
      'assistant:+calls',
      'tool:heron.ts',
      'tool:heron.test.ts',
      'assistant:Two heron files.',
    ]);
    const call = nth(transcript, 1);
    const calls = call.role === 'assistant' ? (call.tool_calls ?? []) : [];
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ path: '.' }, { path: 'test' }]);
    expect(transcript.slice(2, 4).map((m) => (m.role === 'tool' ? m.tool_call_id : ''))).toEqual(calls.map((c) => c.id));
    expect(new Set(times(store, saved.id))).toEqual(new Set([modified.toISOString()]));
    expectValidContexts(store);
  });

  it('adds nothing the second time and appends what a recording gained; reads the older one-document recording', async () => {
    const store = openStore();
    const { root, recording } = geminiTmp();
    await importInto(store, { source: 'gemini-cli', path: root });
    const again = await importInto(store, { source: 'gemini-cli', path: root });
    expect(again).toMatchObject({ unchangedFiles: 3, counts: expect.objectContaining({ messages: 0 }) });

    fs.appendFileSync(recording, jsonl([{ id: 'g-u4', timestamp: '2026-02-01T10:03:00.000Z', type: 'user', content: 'Thanks' }]));
    expect((await importInto(store, { source: 'gemini-cli', path: root })).counts).toMatchObject({ created: 0, grown: 1, forks: 0, messages: 1 });

    const older = {
      sessionId: 'old-1',
      projectHash: 'f3a1',
      startTime: '2025-09-01T09:00:00.000Z',
      lastUpdated: '2025-09-01T09:00:09.000Z',
      messages: [
        { id: 'o1', timestamp: '2025-09-01T09:00:00.000Z', type: 'user', content: [{ text: 'Hello heron' }] },
        { id: 'o2', timestamp: '2025-09-01T09:00:09.000Z', type: 'gemini', content: [{ text: 'Hello.' }] },
      ],
    };
    const file = writeFile(path.join(root, 'f3a1', 'chats', 'session-2025-09-01T09-00-old1.json'), JSON.stringify(older, null, 2));
    await importInto(store, { source: 'gemini-cli', path: file });
    expect(contents(store.getTranscript(nth(byTitle(store, 'Hello heron'), 0).id))).toEqual(['user:Hello heron', 'assistant:Hello.']);
  });
});

describe('pi', () => {
  it('reads a version 3 tree: the last entry is the active leaf, the other leaf a fork, the compaction keeps from its entry', async () => {
    const store = openStore();
    const root = tempDir('loom-pi-');
    writeFile(path.join(root, '--home-ada-game--', `2025-12-09T08-00-00-000Z_${PI_V3}.jsonl`), jsonl(piTree()));
    const summary = await importInto(store, { source: 'pi', path: root });
    expect(summary.counts).toMatchObject({ created: 1, forks: 1 });
    expect([...summary.notUnderstood]).toEqual([['pi entry type "hologram_entry"', 1]]);
    const main = store.list().find((s) => s.parent_id === null);
    expect(main).toMatchObject({ title: 'Otter jump', cwd: '/home/ada/game', model: 'claude-opus-4-5' });
    expect(contents(store.getTranscript(main?.id ?? ''))).toEqual([
      'user:Make the otter sprite jump',
      'assistant:+tc_1',
      'tool:otter.png',
      'assistant:The otter now jumps.',
      'user:Now add a splash sound',
      'assistant:Splash added.',
    ]);
    expect(contents(store.getContext(main?.id ?? '').slice(1))).toEqual([
      'assistant:The otter now jumps.',
      'user:Now add a splash sound',
      'assistant:Splash added.',
    ]);
    const fork = store.list().find((s) => s.parent_id === main?.id);
    expect(contents(store.getTranscript(fork?.id ?? '').slice(4))).toEqual(['user:Or make it swim instead?', 'assistant:Swimming otter added.']);
  });

  it('reads version 1 (a line; the compaction keeps from an entry index) and says when a version is newer than it knows', async () => {
    const store = openStore();
    const root = tempDir('loom-pi-');
    writeFile(path.join(root, 'a', 'old.jsonl'), jsonl(piLinear()));
    writeFile(path.join(root, 'b', 'future.jsonl'), jsonl(piTree(7)));
    const summary = await importInto(store, { source: 'pi', path: root });
    expect(summary.notUnderstood.get('pi session version 7 (read as version 3)')).toBe(1);
    const old = store.list().find((s) => s.cwd === '/home/ada/notes');
    expect(old?.created_at).toBe('2025-11-20T22:59:00.000Z');
    expect(contents(store.getTranscript(old?.id ?? ''))).toEqual([
      'user:Summarise the heron notes',
      'assistant:Herons wade.',
      'user:Ran `wc -l herons.md`\n12 herons.md',
    ]);
    expect(times(store, old?.id ?? '')).toEqual(['00', '10', '20'].map((t) => `2025-11-20T22:59:${t}.000Z`));
    expect(contents(store.getContext(old?.id ?? '').slice(1))).toEqual(['assistant:Herons wade.', 'user:Ran `wc -l herons.md`\n12 herons.md']);
  });

  it('refuses a file without a session header, with its line', async () => {
    const store = openStore();
    const file = writeFile(path.join(tempDir(), 'x.jsonl'), jsonl([{ type: 'message', message: { role: 'user', content: 'hi' } }]));
    expect((await importInto(store, { source: 'pi', path: file })).refused).toEqual([
      `${file}:1: not a pi session header ({"type":"session",…}), file skipped`,
    ]);
    expect(store.list()).toEqual([]);
  });
});

describe('opencode', () => {
  it('reads an export: a tool part as call and result, the compaction, reverted messages as a branch of their own', async () => {
    const store = openStore();
    const file = writeFile(path.join(tempDir(), 'beaver.json'), JSON.stringify(opencodeExport(), null, 2));
    const summary = await importInto(store, { source: 'opencode', path: file });
    expect(summary.counts).toMatchObject({ created: 1, forks: 1, closedCalls: 1 });
    expect([...summary.notUnderstood]).toEqual([['opencode part type "quantum-part"', 1]]);
    const main = store.list().find((s) => s.parent_id === null);
    expect(main).toMatchObject({ title: 'Beaver dam calculator', cwd: '/home/ada/dam', model: 'deepseek-v4-pro', updated_at: '2026-01-05T12:10:00.000Z' });
    expect(contents(store.getTranscript(main?.id ?? ''))).toEqual([
      'user:Compute the beaver dam volume',
      'assistant:+call_calc,call_hang',
      'tool:42 m3',
      `tool:${NO_RESULT_ON_IMPORT}`,
      'assistant:The dam holds 42 m3.',
    ]);
    expect(times(store, main?.id ?? '')).toEqual([1, 2, 2, 2, 3].map((ms) => new Date(ms).toISOString()));
    expect(nth(store.getCompactions(main?.id ?? ''), 0).summary).toBe('Summary: beaver dam is 42 m3.');
    const reverted = store.list().find((s) => s.parent_id === main?.id);
    expect(contents(store.getTranscript(reverted?.id ?? '').slice(5))).toEqual(['user:Convert it to gallons', 'assistant:About 11,095 gallons.']);
  });

  it('refuses a file that is not an export and goes on with the next', async () => {
    const store = openStore();
    const root = tempDir();
    writeFile(path.join(root, 'a.json'), '{"info": 1}');
    writeFile(path.join(root, 'b.json'), JSON.stringify(opencodeExport()));
    const summary = await importInto(store, { source: 'opencode', path: root });
    expect(summary.refused).toEqual([`${path.join(root, 'a.json')}:1: not an opencode export ({"info": …, "messages": […]}), skipped`]);
    expect(summary.counts.created).toBe(1);
  });
});

describe('a file refused whole', () => {
  it('is read again next time: refused again with the same line while unchanged, imported once fixed (even with its old mtime)', async () => {
    const store = openStore();
    const file = writeFile(path.join(tempDir('loom-pi-'), 's.jsonl'), jsonl([{ type: 'message', message: { role: 'user', content: 'hi' } }]));
    const refusal = `${file}:1: not a pi session header ({"type":"session",…}), file skipped`;
    expect((await importInto(store, { source: 'pi', path: file })).refused).toEqual([refusal]);

    const again = await importInto(store, { source: 'pi', path: file });
    expect(again).toMatchObject({ refused: [refusal], unchangedFiles: 0 });

    const { mtime } = fs.statSync(file);
    fs.writeFileSync(file, jsonl(piLinear()));
    fs.utimesSync(file, mtime, mtime);
    const fixed = await importInto(store, { source: 'pi', path: file });
    expect(fixed).toMatchObject({ refused: [], unchangedFiles: 0, counts: expect.objectContaining({ created: 1 }) });
    expect((await importInto(store, { source: 'pi', path: file })).unchangedFiles).toBe(1);
  });
});

describe('locations', () => {
  it('uses the default location under the home folder, and refuses a missing one', async () => {
    const store = openStore();
    const home = tempDir('loom-home-');
    writeFile(path.join(home, '.pi/agent/sessions/--x--/s.jsonl'), jsonl(piLinear()));
    const summary = await runImport(store, await importFiles({ source: 'pi', home }));
    expect(summary).toMatchObject({ location: path.join(home, '.pi/agent/sessions'), usedDefault: true, files: 1 });
    await expect(importFiles({ source: 'codex', home })).rejects.toThrow(`Nothing to import: ${path.join(home, '.codex/sessions')} does not exist.`);
    await expect(importFiles({ source: 'opencode', home })).rejects.toThrow(`Nothing to import: ${path.join(home, '.local/share/opencode')} does not exist.`);
  });
});

describe('entries of shapes no version wrote', () => {
  const odd = [
    { type: 'user', uuid: 'u1', message: { content: 5 } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { content: [null, 3, { type: 'tool_use' }, { type: 'text', text: 7 }] } },
    {
      type: 'user',
      uuid: 'r1',
      parentUuid: 'a1',
      message: { content: [{ type: 'tool_result' }, { type: 'tool_result', tool_use_id: 'nope', content: { x: 1 } }] },
    },
    { type: 'user', uuid: 'u2', parentUuid: 'missing', message: 'text', version: '3.0.1' },
    { type: 'session', version: 'two' },
    { type: 'message', id: 'm', parentId: 'm', message: { role: 'assistant', content: 'plain' } },
    { type: 'compaction', firstKeptEntryIndex: 999 },
    { timestamp: 'yesterday', type: 'response_item', payload: { type: 'function_call_output', output: [null, { type: 'input_text' }] } },
    { type: 'response_item', payload: null },
    [1, 2, 3],
    'a string',
  ];

  it.each(['claude-code', 'codex', 'gemini-cli', 'pi'] as const)('%s: imports what it can, counts what it does not know, never throws', async (source) => {
    const store = openStore();
    // A Codex file is one only when its first line says so.
    const header = { type: 'session_meta', payload: { id: 'odd' } };
    const file = writeFile(path.join(tempDir(), 'rollout-odd.jsonl'), jsonl(source === 'codex' ? [header, ...odd] : odd));
    const summary = await importInto(store, { source, path: file });
    // Refused lines name their line; a parser that threw would refuse the whole file instead.
    expect(summary.refused.every((line) => line.startsWith(`${file}:`))).toBe(true);
    expect(summary.refused.filter((line) => line.includes('could not be read'))).toEqual([]);
    expectValidContexts(store);
  });

  it('claude-code says when entries come from a major version newer than it knows', async () => {
    const store = openStore();
    const file = writeFile(path.join(tempDir(), 's.jsonl'), jsonl(odd.slice(3, 4)));
    expect((await importInto(store, { source: 'claude-code', path: file })).notUnderstood.get('claude-code version 3.x entries (read as version 2.x)')).toBe(1);
  });

  it('opencode: messages and parts of the wrong shape', async () => {
    const store = openStore();
    const doc = {
      info: { id: 'ses_odd', time: 'never' },
      messages: [null, 4, { info: { role: 'assistant' }, parts: 'x' }, { info: { id: 'u', role: 'user' }, parts: [null, { type: 'text', text: 'kept' }] }],
    };
    const file = writeFile(path.join(tempDir(), 'odd.json'), JSON.stringify(doc));
    await importInto(store, { source: 'opencode', path: file });
    expect(contents(store.getTranscript(nth(store.list(), 0).id))).toEqual(['user:kept']);
  });
});

describe('a file with many branches', () => {
  const storedKeyLines = (store: SessionStore) =>
    (store.db.prepare('SELECT keys FROM import_branches').all() as { keys: string }[]).reduce((n, row) => n + row.keys.split('\n').length, 0);

  it('records each entry key once (a fork keeps only its own), and a re-import of the grown file only grows the active line', async () => {
    const store = openStore();
    const lines = branchyPi(200);
    const file = writeFile(path.join(tempDir('loom-pi-'), 'branchy.jsonl'), jsonl(lines));
    const first = await importInto(store, { source: 'pi', path: file });
    expect(first.counts).toMatchObject({ created: 1, forks: 199, grown: 0 });
    // One line per entry, plus each fork's line naming its base.
    expect(storedKeyLines(store)).toBe(lines.length - 1 + 199);

    const fork = store.list().find((s) => s.parent_id !== null);
    expect(contents(store.getTranscript(fork?.id ?? '')).slice(-2)).toEqual([
      expect.stringMatching(/^user:side \d+$/),
      expect.stringMatching(/^assistant:side answer/),
    ]);

    fs.appendFileSync(
      file,
      jsonl([{ type: 'message', id: 'u200', parentId: 'a199', timestamp: '2025-12-09T09:00:00.000Z', message: { role: 'user', content: 'one more' } }]),
    );
    const again = await importInto(store, { source: 'pi', path: file });
    expect(again.counts).toMatchObject({ created: 0, forks: 0, grown: 1, messages: 1 });
    expect(store.list()).toHaveLength(200);
  });

  it('two imports of the same file at once write each branch once', async () => {
    const store = openStore();
    const file = writeFile(path.join(tempDir('loom-pi-'), 'branchy.jsonl'), jsonl(branchyPi(600)));
    const [first, second] = await Promise.all([importInto(store, { source: 'pi', path: file }), importInto(store, { source: 'pi', path: file })]);
    expect(store.list({ limit: -1 })).toHaveLength(600);
    expect(first.counts).toMatchObject({ created: 1, forks: 599 });
    // The second waited for the first, and found the file imported.
    expect(second.unchangedFiles).toBe(1);
  });

  it('two connections to the store (as two processes have) importing the same file at once write each branch once', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const [here, there] = [openStore(dataDir), openStore(dataDir)];
    const file = writeFile(path.join(tempDir('loom-pi-'), 'branchy.jsonl'), jsonl(branchyPi(600)));
    await Promise.all([importInto(here, { source: 'pi', path: file }), importInto(there, { source: 'pi', path: file })]);
    expect(here.list({ limit: -1 })).toHaveLength(600);
  });

  it('still knows a fork whose base session was deleted: it grows, and only the deleted path is imported again', async () => {
    const store = openStore();
    const side = [piEntry('r1', 'a0', 'user', 'side'), piEntry('ra1', 'r1', 'assistant', 'side answer')];
    const main = [piEntry('u1', 'a0', 'user', 'main'), piEntry('a1', 'u1', 'assistant', 'main answer')];
    const header = [
      { type: 'session', version: 3, id: 'pi-orphan', timestamp: '2025-12-09T08:00:00.000Z' },
      piEntry('u0', null, 'user', 'start'),
      piEntry('a0', 'u0', 'assistant', 'started'),
    ];
    const file = writeFile(path.join(tempDir('loom-pi-'), 'orphan.jsonl'), jsonl([...header, ...side, ...main]));
    await importInto(store, { source: 'pi', path: file });
    const base = store.list().find((s) => s.parent_id === null);
    store.delete(base?.id ?? '');
    const fork = nth(store.list(), 0);

    // The side line goes on and becomes the active one (the last entry).
    fs.appendFileSync(file, jsonl([piEntry('r2', 'ra1', 'user', 'side again')]));
    const again = await importInto(store, { source: 'pi', path: file });
    expect(again.counts).toMatchObject({ created: 1, grown: 1, forks: 0 });
    expect(contents(store.getTranscript(fork.id))).toEqual(['user:start', 'assistant:started', 'user:side', 'assistant:side answer', 'user:side again']);
  });

  it('reads records written before forks kept only their own keys (every key of the path stored)', async () => {
    const store = openStore();
    const file = writeFile(path.join(tempDir('loom-pi-'), 'branchy.jsonl'), jsonl(branchyPi(5)));
    await importInto(store, { source: 'pi', path: file });
    // Rewrite every record the old way: the whole path's keys, no base line.
    const rows = store.db.prepare('SELECT session_id, keys FROM import_branches ORDER BY rowid').all() as { session_id: string; keys: string }[];
    const full = new Map<string, string[]>();
    for (const row of rows) {
      const lines = row.keys.split('\n');
      const head = nth(lines, 0);
      const own = lines.slice(1);
      const base = head.startsWith('\u0001') ? head.slice(1).split(' ') : undefined;
      const keys = base ? [...(full.get(nth(base, 1)) ?? []).slice(0, Number(base[0])), ...own] : [head, ...own];
      full.set(row.session_id, keys);
      store.db.prepare('UPDATE import_branches SET keys = ? WHERE session_id = ?').run(keys.join('\n'), row.session_id);
    }
    fs.appendFileSync(
      file,
      jsonl([{ type: 'message', id: 'u5', parentId: 'a4', timestamp: '2025-12-09T09:00:00.000Z', message: { role: 'user', content: 'one more' } }]),
    );
    const again = await importInto(store, { source: 'pi', path: file });
    expect(again.counts).toMatchObject({ created: 0, forks: 0, grown: 1, messages: 1 });
    expect(store.list()).toHaveLength(5);
  });
});
