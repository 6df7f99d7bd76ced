/**
 * A compaction is recorded by where its kept part starts (docs/DESIGN.md#compaction-on-a-derived-context):
 * from the cut's position, without reading the transcript. Whatever the session's shape —
 * never compacted, compacted before, a fork reading its parent's rows, a new system prompt
 * after the last compaction — the context read back is exactly the compacted one, as the
 * path that reads the whole transcript gives it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { boundaryMessage, compactableCut } from '../../src/core/context/compactor';
import { SessionStore } from '../../src/core/store/session-store';
import type { ChatMessage } from '../../src/shared/types';
import { nth } from '../support/elements';

let dir: string;
let store: SessionStore;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-compaction-start-'));
  store = SessionStore.open(dir);
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const compaction = (summary: string) => ({ at: '2026-12-01T00:00:00.000Z', before_tokens: 100, after_tokens: 10, summary });

function turns(from: number, count: number): ChatMessage[] {
  return Array.from({ length: count }, (_, i): ChatMessage[] => [
    { role: 'user', content: `question ${from + i}` },
    { role: 'assistant', content: `answer ${from + i}` },
  ]).flat();
}

/** Compacts the session's context at its latest user turn, as the compactor would, and checks what is read back. */
function compactAndCheck(id: string, summary: string): ChatMessage[] {
  const context = store.getContext(id);
  const cut = compactableCut(context)!;
  const compacted = [nth(context, 0), boundaryMessage(summary), ...context.slice(cut)];
  store.recordCompaction(id, { messages: compacted, compaction: compaction(summary), cut });
  expect(store.getContext(id)).toEqual(compacted);
  // A second store (a new process) derives the same context from what was recorded.
  const other = SessionStore.open(dir);
  try {
    expect(other.getContext(id)).toEqual(compacted);
  } finally {
    other.close();
  }
  return compacted;
}

describe('recording a compaction from its cut', () => {
  it('a session never compacted, then compacted again and again as it grows', () => {
    const { id } = store.create({ messages: [{ role: 'system', content: 'prompt' }, ...turns(0, 10)] });
    compactAndCheck(id, 'first');
    store.appendMessages(id, turns(10, 5));
    compactAndCheck(id, 'second');
    store.appendMessages(id, turns(15, 3));
    const last = compactAndCheck(id, 'third');
    expect(last.map((m) => m.content)).toEqual(['prompt', expect.stringContaining('third'), 'question 17', 'answer 17']);
  });

  it('a fork whose kept part starts in its parent’s rows', () => {
    const { id } = store.create({ messages: [{ role: 'system', content: 'prompt' }, ...turns(0, 6)] });
    const fork = store.fork(id);
    store.appendMessages(fork.id, turns(6, 2));
    compactAndCheck(fork.id, 'in the fork');
    // The parent is untouched.
    expect(store.getContext(id)).toHaveLength(13);
  });

  it('a session opened in another folder: the new prompt leads, the old one stays in the transcript', () => {
    const { id } = store.create({ messages: [{ role: 'system', content: 'prompt in /a' }, ...turns(0, 4)] });
    compactAndCheck(id, 'before the move');
    store.setProject(id, { cwd: '/b', systemPrompt: 'prompt in /b' });
    store.appendMessages(id, turns(4, 3));
    const after = compactAndCheck(id, 'after the move');
    expect(after[0]).toEqual({ role: 'system', content: 'prompt in /b' });
  });
});
