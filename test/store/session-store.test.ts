import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { LoomError } from '../../src/core/errors';
import { SessionStore } from '../../src/core/store/session-store';
import type { Compaction, PlanState } from '../../src/shared/types';
import { nth } from '../support/elements';
import { assistant, conversation, openStore, system, user } from './helpers';

const compaction = (summary = 'Earlier: fixed the parser.'): Compaction => ({
  at: '2026-01-02T03:04:05.000Z',
  before_tokens: 1000,
  after_tokens: 200,
  summary,
});

describe('creating and reading sessions', () => {
  it('creates a session with metadata, an empty plan and zero usage', () => {
    const store = openStore();
    const meta = store.create({ model: 'gemma4', cwd: '/home/me/project', title: 'Parser work' });
    expect(meta).toMatchObject({
      parent_id: null,
      title: 'Parser work',
      summary: null,
      status: 'active',
      archived: false,
      message_count: 0,
      model: 'gemma4',
      cwd: '/home/me/project',
    });
    expect(meta.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(meta.created_at).toISOString()).toBe(meta.created_at);
    expect(store.getPlan(meta.id)).toEqual({ todos: [], scratchpad: '' });
    expect(store.getUsage(meta.id)).toMatchObject({ calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 });
    expect(store.create().id).not.toBe(meta.id);
  });

  it('appends to transcript and working context, updating count and updated_at', () => {
    const store = openStore();
    const { id, updated_at } = store.create({ messages: [system()] });
    for (const m of conversation().slice(1)) store.appendMessage(id, m);
    expect(store.getTranscript(id)).toEqual(conversation());
    expect(store.getContext(id)).toEqual(conversation());
    const meta = store.getMeta(id);
    expect(meta.message_count).toBe(5);
    expect(meta.updated_at > updated_at).toBe(true);
  });

  it('appends several messages at once, in order, or none of them for an unknown session', () => {
    const store = openStore();
    const { id } = store.create({ messages: [system()] });
    store.appendMessages(id, conversation().slice(1));
    expect(store.getTranscript(id)).toEqual(conversation());
    expect(store.getContext(id)).toEqual(conversation());
    expect(store.getMeta(id).message_count).toBe(5);
    expect(() => store.appendMessages('nope', [user('x')])).toThrow(LoomError);
  });

  it('pages through the transcript', () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation() });
    expect(store.getTranscript(id, 1, 2)).toEqual(conversation().slice(1, 3));
    expect(store.getTranscript(id, 4)).toEqual(conversation().slice(4));
    expect(store.getTranscript(id, 10)).toEqual([]);
  });

  it('stores only the chat-format fields of a message', () => {
    const store = openStore();
    const { id } = store.create();
    store.appendMessage(id, { role: 'assistant', content: 'hi', refusal: null, annotations: [] } as never);
    expect(store.getTranscript(id)).toEqual([{ role: 'assistant', content: 'hi' }]);
  });

  it('gets the whole record', () => {
    const store = openStore();
    const { id } = store.create({ model: 'm', messages: conversation() });
    const record = store.get(id);
    expect(record.transcript).toEqual(conversation());
    expect(record.messages).toEqual(conversation());
    expect(record.compactions).toEqual([]);
    expect(record.usage.by_kind.chat.calls).toBe(0);
  });

  it('refuses unknown ids with a clear LoomError and changes nothing', () => {
    const store = openStore();
    store.create();
    const before = store.list();
    for (const op of [
      () => store.getMeta('nope'),
      () => store.appendMessage('nope', user('x')),
      () => store.rename('nope', 'x'),
      () => store.setArchived('nope', true),
      () => store.fork('nope'),
      () => store.delete('nope'),
      () => store.getPlan('nope'),
    ]) {
      expect(op).toThrow(LoomError);
      expect(op).toThrow('No session with id "nope".');
    }
    expect(store.list()).toEqual(before);
  });
});

describe('resolving ids', () => {
  it('accepts a full id or a unique prefix, refuses unknown and ambiguous ones', () => {
    const store = openStore();
    const ids = Array.from({ length: 40 }, () => store.create().id);
    const first = nth(ids, 0);
    expect(store.resolveId(first)).toBe(first);
    expect(store.resolveId(first.slice(0, 13))).toBe(first);
    expect(() => store.resolveId('zzz')).toThrow('No session matches "zzz".');
    expect(() => store.resolveId('  ')).toThrow('No session id given.');
    // 40 ids over 16 first hex digits: some first digit is shared.
    const shared = ids.map((id) => id[0]).find((c, i, all) => all.indexOf(c) !== i)!;
    expect(() => store.resolveId(shared)).toThrow(/ambiguous/);
  });
});

describe('working context, compactions, usage, plan', () => {
  it('replaces the working context atomically without touching the transcript', () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation() });
    const summary = user('<session_context_data>summary</session_context_data>');
    const newContext = [system(), summary, assistant('I fixed the parser.')];
    store.replaceContext(id, newContext);
    expect(store.getContext(id)).toEqual(newContext);
    expect(store.getTranscript(id)).toEqual(conversation());
  });

  it('records a replaced context as a start over the transcript: no message body is added', () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation() });
    const bodies = () => (store.db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;
    const before = bodies();
    store.replaceContext(id, [system(), user('summary'), assistant('I fixed the parser.')]);
    expect(bodies()).toBe(before);
    expect(store.db.prepare('SELECT at_seq, kept_from, with_system, head FROM context_starts').all()).toEqual([
      { at_seq: 5, kept_from: 4, with_system: 1, head: JSON.stringify([user('summary')]) },
    ]);
    store.appendMessage(id, user('more'));
    expect(store.getContext(id)).toEqual([system(), user('summary'), assistant('I fixed the parser.'), user('more')]);
  });

  it('keeps a failed replacement from changing anything', () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation() });
    const bad = [system(), { role: 'nonsense', content: 'x' } as never];
    expect(() => store.replaceContext(id, bad)).toThrow();
    expect(store.getContext(id)).toEqual(conversation());
  });

  it('records a compaction with its context and usage in one go', () => {
    const store = openStore();
    const { id } = store.create({ messages: conversation() });
    const messages = [system(), user('summary of the parser fix'), assistant('I fixed the parser.')];
    store.recordCompaction(id, { messages, compaction: compaction(), usage: { prompt_tokens: 900, completion_tokens: 80, cost_usd: 0.01 } });
    store.appendMessage(id, user('one more thing'));
    // Whatever position a caller claims, the store records the transcript length now.
    store.recordCompaction(id, { messages: [system(), user('second summary')], compaction: { ...compaction('second'), transcript_index: 1 } });
    expect(store.getContext(id)).toEqual([system(), user('second summary')]);
    // Each marker goes where its compaction happened: after message 5, then after message 6.
    expect(store.getCompactions(id)).toEqual([
      { ...compaction(), transcript_index: 5 },
      { ...compaction('second'), transcript_index: 6 },
    ]);
    expect(store.getUsage(id).by_kind.compaction).toEqual({ calls: 1, prompt_tokens: 900, completion_tokens: 80, cost_usd: 0.01 });
    expect(store.getTranscript(id)).toEqual([...conversation(), user('one more thing')]);
  });

  it('adds up usage per call kind', () => {
    const store = openStore();
    const { id } = store.create();
    store.recordUsage(id, 'chat', { prompt_tokens: 100, completion_tokens: 10, cost_usd: 0.5 });
    store.recordUsage(id, 'chat', { prompt_tokens: 200, completion_tokens: 20, cost_usd: 0.25 });
    store.recordUsage(id, 'summary', { prompt_tokens: 50, completion_tokens: 5, cost_usd: 0 });
    const usage = store.getUsage(id);
    expect(usage.by_kind.chat).toEqual({ calls: 2, prompt_tokens: 300, completion_tokens: 30, cost_usd: 0.75 });
    expect(usage.by_kind.summary.calls).toBe(1);
    expect(usage).toMatchObject({ calls: 3, prompt_tokens: 350, completion_tokens: 35, cost_usd: 0.75 });
  });

  it('saves the plan, status, title and summary', () => {
    const store = openStore();
    const { id } = store.create();
    const plan: PlanState = { todos: [{ id: 1, text: 'write tests', status: 'in_progress', retries: 0 }], scratchpad: 'notes' };
    store.savePlan(id, plan);
    store.setStatus(id, 'interrupted');
    store.rename(id, '  Parser work  ');
    store.setSummary(id, 'Fixing the parser');
    expect(store.getPlan(id)).toEqual(plan);
    expect(store.getMeta(id)).toMatchObject({ status: 'interrupted', title: 'Parser work', summary: 'Fixing the parser' });
    store.rename(id, '');
    expect(store.getMeta(id).title).toBeNull();
  });
});

describe('listing', () => {
  it('lists the pinned sessions first, all on the first page, and pages through the others', () => {
    const store = openStore();
    const ids = Array.from({ length: 5 }, (_, i) => store.create({ title: `s${i}` }).id);
    store.setPinned(nth(ids, 1), true);
    store.setPinned(nth(ids, 3), true);
    const first = store.listPage({ limit: 2 });
    expect(first.sessions.map((s) => s.title)).toEqual(['s3', 's1', 's4', 's2']);
    expect(first.sessions.map((s) => s.pinned)).toEqual([true, true, false, false]);
    const second = store.listPage({ limit: 2, after: first.next! });
    expect(second.sessions.map((s) => s.title)).toEqual(['s0']);
    expect(second.next).toBeNull();
    // Pinning is bookkeeping: unpinned, a session is back in its place by its last message.
    store.setPinned(nth(ids, 3), false);
    expect(store.listPage({ limit: 10 }).sessions.map((s) => s.title)).toEqual(['s1', 's4', 's3', 's2', 's0']);
  });

  it('moves a session up for a new message only: renaming, status and the plan keep its place', () => {
    const store = openStore();
    const [older, newer] = [store.create({ title: 'older', messages: conversation() }), store.create({ title: 'newer' })];
    store.rename(older.id, 'older, renamed');
    store.setStatus(older.id, 'saved');
    store.setArchived(older.id, false);
    expect(store.list().map((s) => s.id)).toEqual([newer.id, older.id]);
    expect(store.getMeta(older.id).updated_at).toBe(older.updated_at);
    store.appendMessage(older.id, user('and now?'));
    expect(store.list().map((s) => s.id)).toEqual([older.id, newer.id]);
  });

  it('lists newest updated first, pages, and shows archived only on request', () => {
    const store = openStore();
    const [a, b, c] = [store.create({ title: 'a' }), store.create({ title: 'b' }), store.create({ title: 'c' })];
    store.appendMessage(a.id, user('bump a'));
    expect(store.list().map((s) => s.title)).toEqual(['a', 'c', 'b']);
    expect(store.list({ limit: 2, after: { updated_at: store.getMeta(a.id).updated_at, id: a.id } }).map((s) => s.title)).toEqual(['c', 'b']);
    store.setArchived(c.id, true);
    expect(store.list().map((s) => s.title)).toEqual(['a', 'b']);
    expect(store.list({ includeArchived: true }).map((s) => s.title)).toEqual(['a', 'c', 'b']);
    expect(store.getMeta(c.id).archived).toBe(true);
    store.setArchived(c.id, false);
    expect(store.list().map((s) => s.id)).toContain(c.id);
    expect(b.id).toBeTruthy();
  });

  it('pages by (updated_at, id): every session once, in order, even when sessions change between pages or share a time', () => {
    const store = openStore();
    const ids = Array.from({ length: 7 }, (_, i) => store.create({ title: `s${i}` }).id);
    // Two sessions updated at the same moment (an old database or an import): id breaks the tie.
    store.db.prepare('UPDATE sessions SET updated_at = ? WHERE id IN (?, ?)').run('2020-01-01T00:00:00.000Z', ids[1], ids[2]);
    const expected = store.list().map((s) => s.id);
    expect(expected.slice(-2)).toEqual([ids[1], ids[2]].sort().reverse());

    const first = store.listPage({ limit: 3 });
    expect(first.sessions.map((s) => s.id)).toEqual(expected.slice(0, 3));
    expect(first.next).toEqual({ updated_at: nth(first.sessions, 2).updated_at, id: nth(first.sessions, 2).id });
    // A session already listed moves to the top: the next pages neither repeat nor skip one.
    store.appendMessage(nth(expected, 0), user('bump'));
    const second = store.listPage({ limit: 3, after: first.next! });
    const third = store.listPage({ limit: 3, after: second.next! });
    expect([...second.sessions, ...third.sessions].map((s) => s.id)).toEqual(expected.slice(3));
    expect(third.next).toBeNull();
    expect(store.listPage({ limit: 7 }).next).toBeNull();
  });

  it('serves a page from an index, whatever the size of the list', () => {
    const store = openStore();
    for (const includeArchived of [false, true]) {
      const where = includeArchived ? '' : 's.archived = 0 AND';
      const plan = store.db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT s.title FROM sessions s WHERE ${where} (s.updated_at, s.id) < (?, ?) ORDER BY s.updated_at DESC, s.id DESC LIMIT 10`,
        )
        .all('2030-01-01', 'x') as { detail: string }[];
      const details = plan.map((row) => row.detail).join('\n');
      expect(details).toMatch(/USING INDEX sessions_page_/);
      expect(details).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('knows the most recent unarchived session', () => {
    const store = openStore();
    expect(store.mostRecent()).toBeUndefined();
    const a = store.create();
    const b = store.create();
    expect(store.mostRecent()?.id).toBe(b.id);
    store.setArchived(b.id, true);
    expect(store.mostRecent()?.id).toBe(a.id);
  });
});

describe('search', () => {
  it('finds transcript text, ranked, one hit per session, with marked snippets', () => {
    const store = openStore();
    const strong = store.create({ messages: [system(), user('The tokenizer tokenizer tokenizer breaks on emoji.'), assistant('Fixed the tokenizer.')] });
    const weak = store.create({
      messages: [system(), user('A long note about many things, among them one tokenizer, and the build, the docs, the release and the changelog.')],
    });
    store.create({ messages: [system(), user('Nothing relevant here.')] });
    const hits = store.search('tokenizer');
    expect(hits.map((h) => h.id)).toEqual([strong.id, weak.id]);
    expect(nth(hits, 0).snippet).toContain('[tokenizer]');
    expect(nth(hits, 0).message_count).toBe(3);
  });

  it("shows each session's own matching text as its snippet", () => {
    const store = openStore();
    const first = store.create({ messages: [user('The tokenizer crashes on unicode input.')] });
    const second = store.create({ title: 'Build', messages: [user('Make the build faster.'), assistant('esbuild handles unicode paths fine.')] });
    const snippets = Object.fromEntries(store.search('unicode').map((h) => [h.id, h.snippet]));
    expect(snippets).toEqual({ [first.id]: 'The tokenizer crashes on [unicode] input.', [second.id]: 'esbuild handles [unicode] paths fine.' });
    expect(store.search('build')[0]).toMatchObject({ id: second.id, snippet: 'Make the [build] faster.' });
  });

  it('ranks a session whose title matches above one that only mentions the word', () => {
    const store = openStore();
    const mention = store.create({ messages: [user('We talked about the gizmo once.')] });
    const titled = store.create({ title: 'Gizmo redesign', messages: [user('We talked about the gizmo once.')] });
    expect(store.search('gizmo').map((h) => h.id)).toEqual([titled.id, mention.id]);
  });

  it('finds titles, summaries, tool calls and tool output, but not system prompts', () => {
    const store = openStore();
    const titled = store.create({ title: 'Kubernetes rollout' });
    const summarised = store.create();
    store.setSummary(summarised.id, 'Migrating the database to postgres');
    const withTool = store.create({ messages: conversation() });
    store.create({ messages: [system('You are careful with quasars.')] });
    expect(store.search('kubernetes')).toMatchObject([{ id: titled.id, snippet: '[Kubernetes] rollout' }]);
    expect(store.search('postgres')[0]).toMatchObject({ id: summarised.id, snippet: expect.stringContaining('[postgres]') });
    expect(store.search('read_file').map((h) => h.id)).toEqual([withTool.id]);
    expect(store.search('export function parse').map((h) => h.id)).toEqual([withTool.id]);
    expect(store.search('quasars')).toEqual([]);
  });

  it('never turns user text into an FTS syntax error', () => {
    const store = openStore();
    const { id } = store.create({ messages: [user('Use "quotes" AND (parens) with c++ and NEAR/2 stuff*')] });
    for (const q of ['"', '"quotes', 'AND', 'OR NOT', '(parens', 'c++', 'NEAR/2', 'stuff*', '^', '', '   ', '-', 'col:x']) {
      expect(() => store.search(q)).not.toThrow();
    }
    expect(store.search('"quotes" (parens)').map((h) => h.id)).toEqual([id]);
    expect(store.search('AND').map((h) => h.id)).toEqual([id]);
  });

  it('stems and requires every word', () => {
    const store = openStore();
    const a = store.create({ messages: [user('Running the migrations on the staging database')] });
    store.create({ messages: [user('Running the tests')] });
    expect(store.search('migration').map((h) => h.id)).toEqual([a.id]);
    expect(store.search('running database').map((h) => h.id)).toEqual([a.id]);
  });

  it('hides archived sessions unless asked and honours the limit', () => {
    const store = openStore();
    const ids = Array.from({ length: 5 }, (_, i) => store.create({ messages: [user(`gizmo number ${i}`)] }).id);
    store.setArchived(nth(ids, 0), true);
    expect(store.search('gizmo').map((h) => h.id)).not.toContain(ids[0]);
    expect(store.search('gizmo', { includeArchived: true }).map((h) => h.id)).toContain(ids[0]);
    expect(store.search('gizmo', { limit: 2 })).toHaveLength(2);
  });

  it('finds text from turns compacted out of the working context', () => {
    const store = openStore();
    const { id } = store.create({ messages: [system(), user('The flamingo bug is in the renderer.'), assistant('Fixed.')] });
    store.recordCompaction(id, { messages: [system(), user('summary: a renderer bug was fixed')], compaction: compaction() });
    expect(store.getContext(id).some((m) => (m.content as string | null)?.includes('flamingo'))).toBe(false);
    expect(store.search('flamingo').map((h) => h.id)).toEqual([id]);
  });

  it('sees messages another connection appended', () => {
    const store = openStore();
    const { id } = store.create();
    const other = openStore(store.dataDir);
    other.appendMessage(id, user('a pelican appeared'));
    expect(store.search('pelican').map((h) => h.id)).toEqual([id]);
  });
});

describe('maintenance off the write path', () => {
  const backlog = (store: SessionStore) => (store.db.prepare('SELECT count(*) AS n FROM search_backlog').get() as { n: number }).n;

  it('indexes appended messages once writes pause, and on close', () => {
    vi.useFakeTimers();
    try {
      const store = openStore();
      const { id } = store.create({ messages: conversation() });
      expect(backlog(store)).toBe(4); // everything but the system prompt waits
      vi.advanceTimersByTime(2_000);
      expect(backlog(store)).toBe(0);
      store.appendMessage(id, user('one more'));
      store.close();
      const reopened = openStore(store.dataDir);
      expect(backlog(reopened)).toBe(0);
      expect(reopened.search('more').map((h) => h.id)).toEqual([id]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('fork', () => {
  it('shows the whole record in a new saved, unarchived session', () => {
    const store = openStore();
    const { id } = store.create({ model: 'm', cwd: '/p', title: 'Original', messages: conversation() });
    store.recordCompaction(id, {
      messages: [system(), user('summary')],
      compaction: compaction(),
      usage: { prompt_tokens: 1, completion_tokens: 2, cost_usd: 0 },
    });
    store.recordUsage(id, 'chat', { prompt_tokens: 10, completion_tokens: 20, cost_usd: 0.1 });
    store.savePlan(id, { todos: [{ id: 1, text: 't', status: 'pending', retries: 0 }], scratchpad: 's' });
    store.setArchived(id, true);
    store.setStatus(id, 'interrupted');
    const original = store.get(id);
    const fork = store.fork(id);
    expect(fork.id).not.toBe(id);
    expect(fork).toMatchObject({ parent_id: id, status: 'saved', archived: false, title: 'Original · fork at 5', model: 'm', cwd: '/p', message_count: 5 });
    expect(fork.created_at >= original.created_at).toBe(true);
    const copy = store.get(fork.id);
    for (const key of ['messages', 'transcript', 'compactions', 'plan', 'usage'] as const) expect(copy[key]).toEqual(original[key]);
  });

  it('keeps later changes to either side from showing in the other', () => {
    const store = openStore();
    const { id } = store.create({ title: 'Original', messages: conversation() });
    const fork = store.fork(id).id;
    store.appendMessage(id, user('only in the original: walrus'));
    store.appendMessage(fork, user('only in the fork: narwhal'));
    store.replaceContext(fork, [system(), user('fork summary')]);
    store.recordUsage(fork, 'chat', { prompt_tokens: 1, completion_tokens: 1, cost_usd: 0 });
    store.savePlan(fork, { todos: [], scratchpad: 'fork notes' });
    store.rename(fork, 'Fork');
    expect(store.getTranscript(id).at(-1)).toEqual(user('only in the original: walrus'));
    expect(store.getTranscript(fork).at(-1)).toEqual(user('only in the fork: narwhal'));
    expect(store.getContext(id)).toEqual([...conversation(), user('only in the original: walrus')]);
    expect(store.getUsage(id).calls).toBe(0);
    expect(store.getPlan(id).scratchpad).toBe('');
    expect(store.getMeta(id).title).toBe('Original');
    expect(store.search('walrus').map((h) => h.id)).toEqual([id]);
    expect(store.search('narwhal').map((h) => h.id)).toEqual([fork]);
    // A shared message is a hit in each session holding it, the older first on a tie (docs/DESIGN.md#search).
    expect(store.search('parser').map((h) => h.id)).toEqual([id, fork]);
    store.delete(id);
    expect(store.getTranscript(fork)).toHaveLength(6);
    expect(store.search('parser').map((h) => h.id)).toEqual([fork]);
  });
});

describe('delete', () => {
  it('removes the session and every row of it, but not audit logs', () => {
    const store = openStore();
    const keep = store.create({ messages: conversation('the lexer') });
    const { id } = store.create({ messages: conversation('the zeppelin') });
    store.recordCompaction(id, {
      messages: [system(), user('summary')],
      compaction: compaction(),
      usage: { prompt_tokens: 1, completion_tokens: 1, cost_usd: 0 },
    });
    const audit = path.join(store.dataDir, 'audit', `${id}.jsonl`);
    fs.mkdirSync(path.dirname(audit), { recursive: true });
    fs.writeFileSync(audit, '{"event":"tool"}\n');
    const count = (table: string) => (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const keepRows = { messages: count('messages'), transcript: count('transcript') };
    store.delete(id);
    expect(() => store.getMeta(id)).toThrow(LoomError);
    expect(store.list().map((s) => s.id)).toEqual([keep.id]);
    expect(store.search('zeppelin')).toEqual([]);
    expect(count('transcript')).toBe(keepRows.transcript - 5);
    expect(count('messages')).toBe(keepRows.messages - 5);
    for (const table of ['context_starts', 'compactions', 'usage', 'leases']) {
      expect((store.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE session_pk NOT IN (SELECT pk FROM sessions)`).get() as { n: number }).n).toBe(0);
    }
    expect(fs.readFileSync(audit, 'utf8')).toBe('{"event":"tool"}\n');
    expect(store.getTranscript(keep.id)).toEqual(conversation('the lexer'));
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(() => store.db.exec(`INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')`)).not.toThrow();
  });
});

describe('leases within one machine', () => {
  it('gives a session one owner at a time and frees it on release', () => {
    const store = openStore();
    const { id } = store.create();
    const lease = store.acquireLease(id, 'window-1');
    expect(lease.sessionId).toBe(id);
    expect(() => store.acquireLease(id, 'window-2')).toThrow(`Session ${id} is in use by pid ${process.pid}.`);
    lease.release();
    store.acquireLease(id, 'window-2').release();
  });

  it('refuses deletion while another store holds the lease, allows it for the holder', () => {
    const store = openStore();
    const other = openStore(store.dataDir);
    const { id } = store.create();
    other.acquireLease(id, 'other-window');
    expect(() => store.delete(id)).toThrow(`Session ${id} is in use by pid ${process.pid}.`);
    expect(store.getMeta(id).id).toBe(id);
    other.delete(id);
    expect(() => store.getMeta(id)).toThrow(LoomError);
  });

  it('deletes an unstarted session for good, but not one with a message, a title, or another holder', () => {
    const store = openStore();
    const other = openStore(store.dataDir);
    const [empty, prompted, spoken, titled, held] = [
      store.create(),
      store.create({ messages: [system()] }),
      store.create({ messages: [system(), user('hi')] }),
      store.create({ title: 'Mine' }),
      store.create({ messages: [system()] }),
    ];
    other.acquireLease(held.id, 'other-window');
    expect([empty, prompted, spoken, titled, held].map((s) => store.deleteUnstarted(s.id))).toEqual([true, true, false, false, false]);
    expect(store.list().map((s) => s.id)).toEqual([held.id, titled.id, spoken.id]);
    expect(store.listTrash()).toEqual([]);
  });

  it('reclaims a lease whose heartbeat is stale', () => {
    const store = openStore();
    const { id } = store.create();
    const other = openStore(store.dataDir);
    other.acquireLease(id, 'hung-window');
    store.db.prepare('UPDATE leases SET heartbeat_at = ?').run(new Date(Date.now() - 31_000).toISOString());
    expect(store.acquireLease(id, 'new-window').sessionId).toBe(id);
  });

  it('releases its leases on close', () => {
    const store = openStore();
    const { id } = store.create();
    const other = SessionStore.open(store.dataDir);
    other.acquireLease(id, 'closing-window');
    other.close();
    expect(store.acquireLease(id, 'next-window').sessionId).toBe(id);
  });
});
