import { describe, expect, it } from 'vitest';
import { applyChanges, applyInbox, emptyCounts, type ApplyContext, type RemoteChange } from '../../src/core/sync/apply';
import { bodyHash } from '../../src/core/sync/hub-rows';
import { confirmPushed, readBatch } from '../../src/core/sync/outbox';
import { ensureSyncOn, queuedChanges, readSyncState } from '../../src/core/sync/sync-state';
import type { SessionStore } from '../../src/core/store/session-store';
import { assistant, openStore, user } from '../store/helpers';
import { nth, take } from '../support/elements';

/**
 * The device side of sync on real SQLite files (docs/DESIGN.md#sync-through-a-hub): what
 * the triggers queue, what a batch sends, and how pulled changes are applied. Here a
 * device's batches are handed to the other device the way the hub would hand them over
 * (its own rows as they are), so nothing but the transport is left out; the hub tests
 * (sync-hub.test.ts) run the same code against PostgreSQL.
 */
const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

function deviceOf(store: SessionStore, name: string): ApplyContext {
  ensureSyncOn(store.db, 'postgres://hub/loom', 'hub-1');
  return { deviceLabel: name, labelOf: () => 'the other device' };
}

/** Everything `from` has queued, as the hub would hand it to another device; the outbox is emptied as a push would. */
function handOver(from: SessionStore, deviceId = readSyncState(from.db)?.device_id ?? 'x'): RemoteChange[] {
  const changes: RemoteChange[] = [];
  for (let batch = readBatch(from.db, 0, 100_000); batch; batch = readBatch(from.db, batch.lastSeq, 100_000)) {
    for (const s of batch.sessions) changes.push({ type: 'session', session: { ...s, deleted_hlc: null } });
    for (const e of batch.entries) changes.push({ type: 'entry', entry: { ...e, device_id: deviceId } });
    for (const r of batch.records) changes.push({ type: 'record', record: r });
    for (const t of batch.tombstones) changes.push({ type: 'session', session: { id: t.session_id, deleted_hlc: t.hlc } as never });
    confirmPushed(from.db, batch.lastSeq);
  }
  return changes;
}

function apply(to: SessionStore, changes: RemoteChange[], context: ApplyContext) {
  const counts = emptyCounts();
  applyChanges(to, changes, context, counts);
  return counts;
}

const texts = (store: SessionStore, id: string) => store.getTranscript(id).map((m) => m.content);

describe('sync on the device', () => {
  it('queues nothing while sync is off, then everything in one step when it is turned on, then each change as it is made', () => {
    const store = openStore();
    const a = store.create({ title: 'first', messages: [user('one'), assistant('two')] });
    store.fork(a.id, 1);
    expect(queuedChanges(store.db)).toBe(0);

    ensureSyncOn(store.db, 'postgres://hub/loom', 'hub-1');
    const kinds = store.db.prepare('SELECT kind, count(*) AS n FROM sync_outbox GROUP BY kind ORDER BY kind').all();
    expect(kinds).toEqual([
      { kind: 'entry', n: 2 },
      { kind: 'meta', n: 2 },
    ]);
    const before = queuedChanges(store.db);
    store.appendMessage(a.id, user('three'));
    store.rename(a.id, 'renamed');
    const added = store.db.prepare('SELECT kind, fields FROM sync_outbox WHERE seq > ? ORDER BY seq').all(before);
    // A rename is only its title: it does not move the session up (docs/DESIGN.md#the-sidebar).
    expect(added).toEqual([
      { kind: 'entry', fields: null },
      { kind: 'meta', fields: 'state' },
      { kind: 'meta', fields: 'title' },
    ]);
    const stamps = (store.db.prepare('SELECT hlc FROM sync_outbox ORDER BY seq').all() as { hlc: number }[]).map((r) => r.hlc);
    expect([...stamps].sort((x, y) => x - y)).toEqual(stamps);
  });

  it('a different hub behind the same URL (re-created) queues everything again and keeps the device id', () => {
    const store = openStore();
    store.create({ messages: [user('one')] });
    const first = ensureSyncOn(store.db, 'postgres://hub/loom', 'hub-1');
    confirmPushed(store.db, Number.MAX_SAFE_INTEGER);
    expect(ensureSyncOn(store.db, 'postgres://hub/loom', 'hub-1').device_id).toBe(first.device_id);
    expect(queuedChanges(store.db)).toBe(0);
    const again = ensureSyncOn(store.db, 'postgres://hub/loom', 'hub-2');
    expect(again.device_id).toBe(first.device_id);
    expect(queuedChanges(store.db)).toBe(2);
  });

  it('redacts secrets before anything is hashed or sent', () => {
    const store = openStore();
    ensureSyncOn(store.db, 'postgres://hub/loom', 'hub-1');
    const s = store.create({ title: `deploy with ${SECRET}`, messages: [user(`my token is ${SECRET}`)] });
    store.setSummary(s.id, `uses ${SECRET}`);
    const batch = readBatch(store.db, 0, 100);
    expect(JSON.stringify(batch)).not.toContain(SECRET);
    const entry = nth(batch?.entries ?? [], 0);
    expect(entry.body.content).toBe('my token is [REDACTED]');
    expect(entry.body_hash).toBe(bodyHash(entry.body));
    expect(nth(store.getTranscript(s.id), 0).content).toBe(`my token is ${SECRET}`);
  });

  it('another device gets the same sessions, transcripts, forks and titles; later changes move both ways', () => {
    const a = openStore();
    const b = openStore();
    const onA = deviceOf(a, 'laptop');
    const onB = deviceOf(b, 'desktop');
    const s = a.create({ title: 'plan', messages: [user('one'), assistant('two')] });
    a.recordUsage(s.id, 'chat', { prompt_tokens: 10, completion_tokens: 5, cost_usd: 0.01 });
    const f = a.fork(s.id, 1);
    a.appendMessage(f.id, assistant('other two'));

    const counts = apply(b, handOver(a), onB);
    expect(counts.messages).toBe(3);
    expect(texts(b, s.id)).toEqual(['one', 'two']);
    expect(texts(b, f.id)).toEqual(['one', 'other two']);
    expect(b.getMeta(s.id).title).toBe('plan');
    expect(b.getUsage(s.id).prompt_tokens).toBe(10);
    expect(b.branchesAt(s.id, 1).map((m) => m.id)).toEqual([s.id, f.id]);
    expect(queuedChanges(b.db)).toBe(0);

    b.appendMessage(s.id, user('three from b'));
    b.rename(s.id, 'renamed on b');
    apply(a, handOver(b), onA);
    expect(texts(a, s.id)).toEqual(['one', 'two', 'three from b']);
    expect(a.getMeta(s.id).title).toBe('renamed on b');
    expect(a.getMeta(s.id).message_count).toBe(3);
  });

  it('compactions, the working context they leave and model changes reach the other device, once however often they are handed over', () => {
    const a = openStore();
    const b = openStore();
    const onB = deviceOf(b, 'desktop');
    deviceOf(a, 'laptop');
    const s = a.create({ messages: [user('one'), assistant('two'), user('three'), assistant('four')] });
    a.setModel(s.id, 'gemma4');
    a.recordCompaction(s.id, {
      messages: [user('Summary of the conversation so far: one, two.'), user('three'), assistant('four')],
      compaction: { at: '2026-12-01T04:00:00.000Z', before_tokens: 900, after_tokens: 300, summary: 'one, two' },
    });
    const changes = handOver(a);
    apply(b, changes, onB);
    apply(b, changes, onB);
    expect(b.getContext(s.id)).toEqual(a.getContext(s.id));
    expect(b.getCompactions(s.id)).toEqual(a.getCompactions(s.id));
    expect(b.getModelChanges(s.id)).toEqual(a.getModelChanges(s.id));
    expect(b.getMeta(s.id).model).toBe('gemma4');
  });

  it('the later title wins whichever order the changes arrive in', () => {
    const a = openStore();
    const b = openStore();
    const onA = deviceOf(a, 'laptop');
    const onB = deviceOf(b, 'desktop');
    const s = a.create({ title: 'start' });
    apply(b, handOver(a), onB);
    a.rename(s.id, 'older');
    const older = handOver(a);
    b.rename(s.id, 'newer');
    apply(a, handOver(b), onA);
    apply(b, older, onB);
    expect(a.getMeta(s.id).title).toBe('newer');
    expect(b.getMeta(s.id).title).toBe('newer');
  });

  it('divergent appends: the hub keeps the positions, this device moves its own messages into a branch with a note', () => {
    const a = openStore();
    const b = openStore();
    const onB = deviceOf(b, 'desktop');
    deviceOf(a, 'laptop');
    const s = a.create({ messages: [user('one'), assistant('two')] });
    apply(b, handOver(a), onB);
    a.appendMessage(s.id, user('three on a'));
    b.appendMessage(s.id, user('three on b'));
    b.appendMessage(s.id, assistant('four on b'));

    const counts = apply(b, handOver(a), onB);
    expect(counts.branches).toBe(1);
    expect(texts(b, s.id)).toEqual(['one', 'two', 'three on a']);
    const [, branch] = take(b.branchesAt(s.id, 2), 2);
    expect(texts(b, branch.id)).toEqual(['one', 'two', 'three on b', 'four on b']);
    const note = b.db.prepare('SELECT note FROM sessions WHERE id = ?').get(branch.id) as { note: string };
    expect(note.note).toBe('Diverged: written on desktop while the other device added to the same session; kept as a branch.');
    // What b pushes next is the branch (with its rows at the same seqs), not a second copy at s's positions.
    const next = readBatch(b.db, 0, 100);
    expect(next?.entries.map((e) => [e.session_id, e.seq, e.body.content])).toEqual([
      [branch.id, 2, 'three on b'],
      [branch.id, 3, 'four on b'],
    ]);
    expect(next?.sessions.map((x) => x.id)).toContain(branch.id);
  });

  it('a delete reaches the other device; a fork there keeps the messages it read from the deleted session', () => {
    const a = openStore();
    const b = openStore();
    const onB = deviceOf(b, 'desktop');
    deviceOf(a, 'laptop');
    const s = a.create({ messages: [user('one'), assistant('two')] });
    apply(b, handOver(a), onB);
    const localFork = b.fork(s.id, 1);
    a.delete(s.id);
    const counts = apply(b, handOver(a), onB);
    expect(counts.deletes).toBe(1);
    expect(() => b.getMeta(s.id)).toThrow(/No session/);
    expect(texts(b, localFork.id)).toEqual(['one']);
  });

  it('a session another process holds waits in the inbox and is applied once it is free', () => {
    const a = openStore();
    const b = openStore();
    const onB = deviceOf(b, 'desktop');
    deviceOf(a, 'laptop');
    const s = a.create({ messages: [user('one')] });
    apply(b, handOver(a), onB);
    const lease = b.acquireLease(s.id, 'another-process');
    const other = openStore(b.dataDir);
    a.appendMessage(s.id, assistant('two'));
    applyChanges(other, handOver(a), onB, emptyCounts());
    expect(texts(other, s.id)).toEqual(['one']);
    expect(applyInbox(other, onB, emptyCounts())).toEqual([s.id]);
    lease.release();
    expect(applyInbox(other, onB, emptyCounts())).toEqual([]);
    expect(texts(other, s.id)).toEqual(['one', 'two']);
  });
});
