/**
 * The `loom` lifecycle commands end to end: the built command in a child process against a
 * real loom.db in a temp folder, checked by what it prints, its exit code and the store.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/core/store/session-store';
import type { SessionMeta } from '../../src/shared/types';
import { nth } from '../support/elements';
import { BIN, buildLoom, expectOneErrorLine, makeTempDir, removeDir, runLoom } from './run-loom';

let dir: string;
const loom = (...args: string[]) => runLoom([...args, '--data-dir', dir]);

function withStore<T>(fn: (store: SessionStore) => T): T {
  const store = SessionStore.open(dir);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

interface Seeded {
  parser: SessionMeta;
  build: SessionMeta;
  old: SessionMeta;
}

/** Three sessions: a titled one with usage and a compaction, an untitled one with a listing summary, an archived one. */
function seed(): Seeded {
  return withStore((store) => {
    const parser = store.create({ title: 'Parser fix', model: 'gemma4', cwd: '/projects/parser' });
    store.appendMessage(parser.id, { role: 'system', content: 'You are Loom.' });
    store.appendMessage(parser.id, { role: 'user', content: 'The tokenizer crashes on unicode input.' });
    store.appendMessage(parser.id, { role: 'assistant', content: 'I fixed the tokenizer.' });
    store.recordUsage(parser.id, 'chat', { prompt_tokens: 1200, completion_tokens: 300, cost_usd: 0.5 });
    store.recordUsage(parser.id, 'chat', { prompt_tokens: 800, completion_tokens: 100, cost_usd: 0.25 });
    store.recordCompaction(parser.id, {
      messages: [
        { role: 'system', content: 'You are Loom.' },
        { role: 'user', content: 'summary of the tokenizer work' },
      ],
      compaction: { at: new Date().toISOString(), before_tokens: 900, after_tokens: 200, summary: 'tokenizer work' },
      usage: { prompt_tokens: 900, completion_tokens: 50, cost_usd: 0.1 },
    });
    const build = store.create({ messages: [{ role: 'user', content: 'Make the build faster with esbuild.' }] });
    store.setSummary(build.id, 'Speeding up the build');
    const old = store.create({ title: 'Old zebra experiment', messages: [{ role: 'user', content: 'zebra stripes' }] });
    store.setArchived(old.id, true);
    return { parser: store.getMeta(parser.id), build: store.getMeta(build.id), old: store.getMeta(old.id) };
  });
}

function sessionCount(): number {
  return withStore((store) => store.list({ includeArchived: true }).length);
}

beforeAll(buildLoom, 120_000);
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => removeDir(dir));

describe('--list-sessions', () => {
  it('prints a table, newest first, without archived sessions', async () => {
    const s = seed();
    const run = await loom('--list-sessions');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TITLE\s+UPDATED\s+MESSAGES$/);
    expect(lines).toHaveLength(3);
    // The untitled session shows its listing summary; it was changed last, so it comes first.
    expect(lines[1]).toMatch(new RegExp(`^${s.build.id.slice(0, 8)}\\S*\\s+Speeding up the build\\s+just now\\s+1$`));
    expect(lines[2]).toMatch(new RegExp(`^${s.parser.id.slice(0, 8)}\\S*\\s+Parser fix\\s+just now\\s+3$`));
    expect(run.stdout).not.toContain('zebra');
  });

  it('shows archived sessions, marked, with --include-archived', async () => {
    const s = seed();
    const run = await loom('--list-sessions', '--include-archived');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`${s.old.id.slice(0, 8)}\\S*\\s+\\[archived\\] Old zebra experiment`));
  });

  it('prints the JSON array of docs/DESIGN.md#json-output', async () => {
    const s = seed();
    const run = await loom('--list-sessions', '--json');
    expect(run.code).toBe(0);
    const list = JSON.parse(run.stdout);
    expect(list.map((e: { id: string }) => e.id)).toEqual([s.build.id, s.parser.id]);
    expect(list[1]).toEqual({
      id: s.parser.id,
      parent_id: null,
      title: 'Parser fix',
      summary: null,
      status: s.parser.status,
      archived: false,
      created_at: s.parser.created_at,
      updated_at: s.parser.updated_at,
      message_count: 3,
    });
    const all = JSON.parse((await loom('--list-sessions', '--json', '--include-archived')).stdout);
    expect(all.map((e: { id: string }) => e.id)).toContain(s.old.id);
  });

  it('says so when there are no sessions, or only archived ones', async () => {
    expect((await loom('--list-sessions')).stdout).toBe('No sessions yet.\n');
    expect(JSON.parse((await loom('--list-sessions', '--json')).stdout)).toEqual([]);
    withStore((store) => store.setArchived(store.create().id, true));
    expect((await loom('--list-sessions')).stdout).toContain('--include-archived');
  });

  it('does not wait on a stdin that never closes', async () => {
    seed();
    const run = await runLoom(['--list-sessions', '--data-dir', dir], { holdStdin: true });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Parser fix');
  });
});

describe('--search', () => {
  it('finds transcript text, with a snippet, and hides archived sessions', async () => {
    const s = seed();
    const run = await loom('--search', 'tokenizer');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(s.parser.id.slice(0, 8));
    expect(run.stdout).toMatch(/\n {4}.*tokenizer/i);
    expect(run.stdout).not.toContain(s.build.id.slice(0, 8));
    expect((await loom('--search', 'zebra')).stdout).toMatch(/^No sessions match "zebra"/);
  });

  it("shows each session's own matching text as its snippet", async () => {
    const s = seed();
    withStore((store) => store.appendMessage(s.build.id, { role: 'assistant', content: 'esbuild handles unicode paths fine.' }));
    const hits: Array<{ id: string; snippet: string }> = JSON.parse((await loom('--search', 'unicode', '--json')).stdout);
    expect(hits.map((h) => h.id).sort()).toEqual([s.parser.id, s.build.id].sort());
    expect(hits.find((h) => h.id === s.parser.id)!.snippet).toContain('crashes on [unicode]');
    expect(hits.find((h) => h.id === s.build.id)!.snippet).toContain('handles [unicode] paths');
  });

  it('reads "quoted words" as a phrase, as the sidebar does', async () => {
    const s = seed();
    withStore((store) => store.appendMessage(s.build.id, { role: 'assistant', content: 'The input, in unicode, crashes nothing.' }));
    const ids = async (query: string) => (JSON.parse((await loom('--search', query, '--json')).stdout) as Array<{ id: string }>).map((h) => h.id).sort();
    expect(await ids('unicode input')).toEqual([s.parser.id, s.build.id].sort());
    expect(await ids('"unicode input"')).toEqual([s.parser.id]);
  });

  it('prints the JSON array with snippets, archived only with --include-archived', async () => {
    const s = seed();
    const hits = JSON.parse((await loom('--search', 'zebra', '--json', '--include-archived')).stdout);
    expect(hits).toHaveLength(1);
    expect(Object.keys(hits[0]).sort()).toEqual(
      ['archived', 'created_at', 'id', 'message_count', 'parent_id', 'snippet', 'status', 'summary', 'title', 'updated_at'].sort(),
    );
    expect(hits[0]).toMatchObject({ id: s.old.id, archived: true });
    expect(hits[0].snippet).toMatch(/zebra/i);
    expect(JSON.parse((await loom('--search', 'zebra', '--json')).stdout)).toEqual([]);
  });
});

describe('--info', () => {
  it('prints the JSON of docs/DESIGN.md#json-output with cumulative usage', async () => {
    const s = seed();
    const run = await loom('--info', s.parser.id, '--json');
    expect(run.code).toBe(0);
    const info = JSON.parse(run.stdout);
    expect(info).toMatchObject({
      id: s.parser.id,
      parent_id: null,
      title: 'Parser fix',
      status: s.parser.status,
      archived: false,
      transcript_messages: 3,
      compactions: 1,
      usage: { calls: 3, prompt_tokens: 2900, completion_tokens: 450 },
    });
    expect(Object.keys(info)).toEqual([
      'id',
      'parent_id',
      'title',
      'status',
      'archived',
      'transcript_messages',
      'compactions',
      'usage',
      'model',
      'model_changes',
      'agent',
      'agent_changes',
      'subagent_of',
      'children',
      'children_usage',
      'total_usage',
    ]);
    expect(info).toMatchObject({ model: 'gemma4', model_changes: [], agent: 'build', agent_changes: [] });
    expect(info.usage.cost_usd).toBeCloseTo(0.85);
    expect(info.usage.by_kind.chat).toMatchObject({ calls: 2, prompt_tokens: 2000, completion_tokens: 400 });
    expect(info.usage.by_kind.compaction).toMatchObject({ calls: 1, prompt_tokens: 900 });
  });

  it('prints a readable summary by a unique prefix', async () => {
    const s = seed();
    const run = await loom('--info', s.parser.id.slice(0, 6));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(new RegExp(`^ID:\\s+${s.parser.id}$`, 'm'));
    expect(run.stdout).toMatch(/Title:\s+Parser fix/);
    expect(run.stdout).toMatch(/Transcript:\s+3 messages/);
    expect(run.stdout).toMatch(/Context:\s+2 messages/);
    expect(run.stdout).toMatch(/Compactions:\s+1/);
    expect(run.stdout).toMatch(/chat\s+2\s+2,000\s+400\s+\$0\.75/);
    expect(run.stdout).toMatch(/compaction\s+1\s+900\s+50\s+\$0\.10/);
    expect(run.stdout).toMatch(/total\s+3\s+2,900\s+450\s+\$0\.85/);
  });

  it('lists the model changes, in the text and in the JSON', async () => {
    const s = seed();
    withStore((store) => store.setModel(s.parser.id, 'qwen3'));
    const text = await loom('--info', s.parser.id);
    expect(text.stdout).toMatch(/^Model:\s+qwen3$/m);
    expect(text.stdout).toMatch(/^Model changes:\n {2}.+ {2}gemma4 -> qwen3 \(from message 4\)$/m);
    const json = JSON.parse((await loom('--info', s.parser.id, '--json')).stdout);
    expect(json).toMatchObject({ model: 'qwen3', model_changes: [{ from: 'gemma4', to: 'qwen3', transcript_index: 3 }] });
  });

  it('refuses an unknown id and an ambiguous prefix in one line', async () => {
    seed();
    const unknown = await loom('--info', 'zzzzzzzz-no-such');
    expect(unknown.code).toBe(1);
    // A refusal, not a bug: thrown in the lifecycle commands' file of the build, told apart in dist/cli.js.
    expect(expectOneErrorLine(unknown)).toBe('loom: No session matches "zzzzzzzz-no-such".');

    const ids = withStore((store) => {
      const made: string[] = [];
      for (let i = 0; i < 100; i++) {
        made.push(store.create().id);
        const twin = made.find((id, j) => j < made.length - 1 && id[0] === nth(made, -1)[0]);
        if (twin) return [twin, nth(made, -1)];
      }
      throw new Error('no two ids share a first character');
    });
    const ambiguous = await loom('--info', nth(ids, 0).charAt(0));
    expect(ambiguous.code).toBe(1);
    expectOneErrorLine(ambiguous);
    expect(ambiguous.stdout).toBe('');
  });
});

describe('changing sessions', () => {
  it('--rename sets the user title by prefix', async () => {
    const s = seed();
    const run = await loom('--rename', s.build.id.slice(0, 8), 'Faster builds');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(s.build.id);
    expect(withStore((store) => store.getMeta(s.build.id))).toMatchObject({ title: 'Faster builds', summary: 'Speeding up the build' });
  });

  it('--fork prints only the new id, a child of the original', async () => {
    const s = seed();
    const run = await loom('--fork', s.parser.id);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const id = run.stdout.trim();
    expect(run.stdout).toBe(`${id}\n`);
    expect(id).not.toBe(s.parser.id);
    const fork = withStore((store) => store.get(id));
    expect(fork).toMatchObject({ parent_id: s.parser.id, message_count: 3, archived: false });
  });

  it('--fork ID --at N shares the first N messages as --export lists them, and prints only the new id', async () => {
    const s = seed();
    const exported = JSON.parse((await loom('--export', s.parser.id)).stdout) as { session: { transcript: unknown[] } };
    const run = await loom('--fork', s.parser.id.slice(0, 8), '--at', '2');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const id = run.stdout.trim();
    expect(run.stdout).toBe(`${id}\n`);
    const fork = withStore((store) => store.get(id));
    expect(fork).toMatchObject({ parent_id: s.parser.id, message_count: 2 });
    expect(fork.transcript).toEqual(exported.session.transcript.slice(0, 2));
    // Forked before the compaction was recorded (after message 3): the fork does not inherit it.
    expect(fork.messages).toEqual(fork.transcript);
    expect(fork.compactions).toEqual([]);
    const rows = withStore(
      (store) => (store.db.prepare('SELECT count(*) AS n FROM transcript t JOIN sessions s ON s.pk = t.session_pk WHERE s.id = ?').get(id) as { n: number }).n,
    );
    expect(rows).toBe(0);
  });

  it('--fork --at refuses a point outside the transcript or not a number, with one line and nothing created', async () => {
    const s = seed();
    for (const [at, message] of [
      ['4', /Cannot fork at message 4: session .* has 3 transcript messages/],
      ['0', /--at needs a message number from 1/],
      ['x', /--at needs a message number/],
    ] as const) {
      const run = await loom('--fork', s.parser.id, '--at', at);
      expect(run.code).not.toBe(0);
      expect(expectOneErrorLine(run)).toMatch(message);
      expect(run.stdout).toBe('');
    }
    expect((await loom('--info', s.parser.id, '--at', '2')).stderr).toContain('--at only applies to --fork.');
    expect(sessionCount()).toBe(3);
  });

  it('--archive hides a session from list and search; --unarchive brings it back', async () => {
    const s = seed();
    expect((await loom('--archive', s.parser.id)).code).toBe(0);
    expect(withStore((store) => store.getMeta(s.parser.id).archived)).toBe(true);
    expect((await loom('--list-sessions')).stdout).not.toContain('Parser fix');
    expect(JSON.parse((await loom('--search', 'tokenizer', '--json')).stdout)).toEqual([]);
    expect((await loom('--search', 'tokenizer', '--include-archived')).stdout).toContain('Parser fix');

    expect((await loom('--unarchive', s.parser.id.slice(0, 8))).code).toBe(0);
    expect(withStore((store) => store.getMeta(s.parser.id).archived)).toBe(false);
    expect((await loom('--list-sessions')).stdout).toContain('Parser fix');
  });

  it('--pin lists a session first, marked, until --unpin; an unknown id is one error line', async () => {
    const s = seed();
    const pinned = await loom('--pin', s.parser.id.slice(0, 8));
    expect(pinned).toMatchObject({ code: 0, stdout: `Pinned session ${s.parser.id}.\n`, stderr: '' });
    expect(withStore((store) => store.getMeta(s.parser.id))).toMatchObject({ pinned: true, updated_at: s.parser.updated_at });
    const lines = (await loom('--list-sessions')).stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(new RegExp(`^${s.parser.id.slice(0, 8)}\\S*\\s+\\[pinned\\] Parser fix\\s`));
    expect(lines[2]).toContain('Speeding up the build');
    expect(JSON.parse((await loom('--list-sessions', '--json')).stdout).map((e: { id: string }) => e.id)).toEqual([s.parser.id, s.build.id]);

    expect(await loom('--unpin', s.parser.id)).toMatchObject({ code: 0, stdout: `Unpinned session ${s.parser.id}.\n` });
    expect((await loom('--list-sessions')).stdout.trimEnd().split('\n')[1]).toContain('Speeding up the build');

    const unknown = await loom('--pin', 'nope-nope');
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(expectOneErrorLine(unknown)).toContain('nope-nope');
  });

  it('--delete without --yes refuses and deletes nothing; with --yes it deletes', async () => {
    const s = seed();
    const refused = await loom('--delete', s.parser.id);
    expect(refused.code).toBe(1);
    expect(expectOneErrorLine(refused)).toContain('--yes');
    expect(withStore((store) => store.get(s.parser.id).transcript)).toHaveLength(3);

    const done = await loom('--delete', s.parser.id.slice(0, 8), '--yes');
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(withStore((store) => store.list({ includeArchived: true }).map((m) => m.id))).not.toContain(s.parser.id);
    expect(sessionCount()).toBe(2);
  });

  it('--delete refuses a session another process is working in', async () => {
    const s = seed();
    const store = SessionStore.open(dir);
    const lease = store.acquireLease(s.parser.id);
    try {
      const run = await loom('--delete', s.parser.id, '--yes');
      expect(run.code).toBe(1);
      expect(expectOneErrorLine(run)).toContain(`in use by pid ${process.pid}`);
      expect(store.getMeta(s.parser.id).message_count).toBe(3);
    } finally {
      lease.release();
      store.close();
    }
  });

  it('--delete of an unknown id changes nothing', async () => {
    seed();
    const run = await loom('--delete', 'nope-nope', '--yes');
    expect(run.code).toBe(1);
    expectOneErrorLine(run);
    expect(sessionCount()).toBe(3);
  });
});

describe('--export and --import', () => {
  it('round-trips a session through a JSON file', async () => {
    const s = seed();
    const exported = await loom('--export', s.parser.id.slice(0, 8));
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    const doc = JSON.parse(exported.stdout);
    expect(doc).toMatchObject({ format: 'loom-session', version: 3, session: { id: s.parser.id, title: 'Parser fix', fork: null } });

    const file = path.join(dir, 'parser.json');
    fs.writeFileSync(file, exported.stdout);
    const imported = await loom('--import', file);
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    const id = imported.stdout.trim();
    expect(imported.stdout).toBe(`${id}\n`);
    expect(id).not.toBe(s.parser.id);
    const [original, copy] = withStore((store) => [store.get(s.parser.id), store.get(id)]);
    expect(copy.title).toBe('Parser fix');
    expect(copy.transcript).toEqual(original.transcript);
    expect(copy.messages).toEqual(original.messages);
    expect(copy.compactions).toEqual(original.compactions);
  });

  it('--export of a fork at a message names its fork point (export version 2)', async () => {
    const s = seed();
    const fork = (await loom('--fork', s.parser.id, '--at', '2')).stdout.trim();
    const doc = JSON.parse((await loom('--export', fork)).stdout);
    expect(doc.session).toMatchObject({
      parent_id: s.parser.id,
      fork: { parent_id: s.parser.id, at: 2 },
      context_start: { kept_from: 0, with_system: true, head: [] },
    });
    expect(doc.session.transcript).toHaveLength(2);
  });

  it('imports from stdin with -', async () => {
    const s = seed();
    const exported = await loom('--export', s.build.id);
    const imported = await runLoom(['--import', '-', '--data-dir', dir], { input: exported.stdout });
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    expect(withStore((store) => store.get(imported.stdout.trim()).transcript)).toEqual([{ role: 'user', content: 'Make the build faster with esbuild.' }]);
  });

  it('exports Markdown and HTML', async () => {
    const s = seed();
    const md = await loom('--export', s.parser.id, '--format', 'markdown');
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('Parser fix');
    expect(md.stdout).toContain('The tokenizer crashes on unicode input.');
    const html = await loom('--export', s.parser.id, '--format', 'html');
    expect(html.code).toBe(0);
    expect(html.stdout).toMatch(/<html[\s>]/i);
    expect(html.stdout).toContain('The tokenizer crashes on unicode input.');
  });

  it.each([
    ['not JSON', 'this is not json {'],
    ['foreign JSON', JSON.stringify({ hello: 'world' })],
    ['a wrong version', JSON.stringify({ format: 'loom-session', version: 99, exported_at: '2025-01-01T00:00:00Z', session: {} })],
  ])('rejects %s clearly and creates nothing', async (_label, text) => {
    seed();
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(file, text);
    const run = await loom('--import', file);
    expect(run.code).toBe(1);
    expectOneErrorLine(run);
    expect(run.stdout).toBe('');
    expect(sessionCount()).toBe(3);
  });

  it('imports a parent with its sub-agents; a link to a call it never made is dropped, said in one line', async () => {
    const parent = withStore((store) => {
      const { id } = store.create({ title: 'Parent', messages: [{ role: 'user', content: 'look around' }] });
      const call = { id: 'call_a', type: 'function' as const, function: { name: 'run_subagent', arguments: '{}' } };
      store.appendMessage(id, { role: 'assistant', content: null, tool_calls: [call] });
      for (const callId of ['call_a', 'call_elsewhere']) store.create({ title: `explore: ${callId}`, spawn: { parentId: id, callId, agent: 'explore' } });
      store.appendMessage(id, { role: 'tool', tool_call_id: 'call_a', content: 'found' });
      return id;
    });
    const file = path.join(dir, 'family.json');
    fs.writeFileSync(file, (await loom('--export', parent)).stdout);
    const run = await loom('--import', file);
    expect(run.code).toBe(0);
    const id = run.stdout.trim();
    expect(expectOneErrorLine(run)).toMatch(
      new RegExp(`^loom: Imported session ${id}: 1 sub-agent session named no run_subagent call of its transcript; imported unlinked \\(`),
    );
    expect(withStore((store) => store.children(id).map((c) => c.child.call_id))).toEqual(['call_a']);

    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file, JSON.stringify({ ...doc, children: Array.from({ length: 10_000 }, () => doc.children[0]) }));
    const before = withStore((store) => store.list({ includeChildren: true }).length);
    const hostile = await loom('--import', file);
    expect(hostile.code).toBe(1);
    expect(expectOneErrorLine(hostile)).toContain('children: 10000 sub-agent sessions, more than the 1000 an import takes');
    expect(withStore((store) => store.list({ includeChildren: true }).length)).toBe(before);
  });

  it('rejects a missing file by name', async () => {
    const run = await loom('--import', path.join(dir, 'missing.json'));
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toContain('missing.json: no such file');
  });

  it('rejects a folder', async () => {
    const run = await loom('--import', dir);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toContain('it is a folder');
  });

  it('writes a large export to a pipe in full', async () => {
    const id = withStore((store) => {
      const meta = store.create({ title: 'Big' });
      for (let i = 0; i < 40; i++) store.appendMessage(meta.id, { role: 'user', content: `line ${i} ${'x'.repeat(50_000)}` });
      return meta.id;
    });
    const run = await loom('--export', id);
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeGreaterThan(2_000_000);
    expect(JSON.parse(run.stdout).session.transcript).toHaveLength(40);
  });
});

describe('writing to a pipe', () => {
  it('ends quietly, exit 0, when the reader goes away early (loom ... | head -1)', async () => {
    const id = withStore((store) => store.create({ messages: [{ role: 'user', content: 'y'.repeat(3_000_000) }] }).id);
    const child = spawn(process.execPath, [BIN, '--export', id, '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('where data lives', () => {
  it('uses LOOM_HOME, and --data-dir overrides it', async () => {
    seed();
    const other = makeTempDir();
    try {
      const fromHome = await runLoom(['--list-sessions', '--json'], { env: { LOOM_HOME: dir } });
      expect(JSON.parse(fromHome.stdout)).toHaveLength(2);
      const overridden = await runLoom(['--list-sessions', '--json', '--data-dir', other], { env: { LOOM_HOME: dir } });
      expect(JSON.parse(overridden.stdout)).toEqual([]);
    } finally {
      removeDir(other);
    }
  });
});
