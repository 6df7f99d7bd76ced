/**
 * Per-message facts and model changes in the store (migration 5): recorded on append,
 * absent from older messages, shared by forks, carried by every export format and by import.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath } from '../../src/core/store/db';
import { MIGRATIONS, readSchemaVersion } from '../../src/core/store/migrations';
import { nth } from '../support/elements';
import { assistant, openStore, system, tempDir, user } from './helpers';
import { parseExport } from '../../src/core/store/export-schema';

const REPLY_FACTS = { model: 'gpt-4o', prompt_tokens: 1200, completion_tokens: 300, cost_usd: 0.006, latency_ms: 420, tokens_per_second: 55.5 };

function sessionWithFacts() {
  const store = openStore();
  const { id } = store.create({ model: 'gemma4', messages: [system()] });
  store.appendMessage(id, user('What is 2 + 2?'));
  store.appendMessage(id, assistant('4.'), REPLY_FACTS);
  store.setModel(id, 'gpt-4o');
  return { store, id };
}

describe('message facts in the store', () => {
  it('stamps every appended message with its time and keeps what the caller knew', () => {
    const { store, id } = sessionWithFacts();
    const facts = store.getTranscriptFacts(id);
    expect(facts).toHaveLength(3);
    for (const f of facts) expect(new Date(f!.at).toISOString()).toBe(f!.at);
    expect(facts[2]).toEqual({ at: facts[2]!.at, ...REPLY_FACTS });
    expect(store.getTranscriptFacts(id, 2, 1)).toEqual([facts[2]]);
  });

  it("a fork reads its parent's facts and takes the model changes made before its fork point", () => {
    const { store, id } = sessionWithFacts();
    const early = store.fork(id, 2);
    const whole = store.fork(id);
    expect(store.getTranscriptFacts(whole.id)).toEqual(store.getTranscriptFacts(id));
    expect(store.getModelChanges(whole.id)).toEqual(store.getModelChanges(id));
    expect(store.getModelChanges(early.id)).toEqual([]);
  });

  it('an old database migrates: its messages have no facts, new ones do', () => {
    const dataDir = path.join(tempDir(), 'data');
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.copyFileSync(path.join(import.meta.dirname, 'fixtures', 'v2-sessions.db'), databasePath(dataDir));
    fs.chmodSync(databasePath(dataDir), 0o600);
    const store = openStore(dataDir);
    expect(readSchemaVersion(store.db)).toBe(MIGRATIONS.at(-1)!.version);
    const old = nth(store.list({ includeArchived: true }), 0);
    const before = store.getTranscriptFacts(old.id);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((f) => f === null)).toBe(true);
    expect(store.getModelChanges(old.id)).toEqual([]);
    store.appendMessage(old.id, user('still works'));
    expect(store.getTranscriptFacts(old.id).at(-1)).toEqual({ at: expect.any(String) });
  });
});

describe('facts and model changes in exports', () => {
  it('JSON keeps them and import takes them back', async () => {
    const { store, id } = sessionWithFacts();
    const doc = JSON.parse(await store.exportSession(id));
    expect(doc.session.transcript_facts).toEqual(store.getTranscriptFacts(id));
    expect(doc.session.model_changes).toEqual([{ at: expect.any(String), from: 'gemma4', to: 'gpt-4o', transcript_index: 3 }]);
    const imported = store.importSession(parseExport(JSON.stringify(doc))).meta;
    expect(store.getTranscriptFacts(imported.id)).toEqual(store.getTranscriptFacts(id));
    expect(store.getModelChanges(imported.id)).toEqual(store.getModelChanges(id));
  });

  it('imports exports without them (older Loom): no facts, no changes', async () => {
    const { store, id } = sessionWithFacts();
    const doc = JSON.parse(await store.exportSession(id));
    delete doc.session.transcript_facts;
    delete doc.session.model_changes;
    const imported = store.importSession(parseExport(JSON.stringify(doc))).meta;
    expect(store.getTranscriptFacts(imported.id)).toEqual([null, null, null]);
    expect(store.getModelChanges(imported.id)).toEqual([]);
  });

  it('refuses facts that do not line up with the transcript, or are not facts, and imports nothing', async () => {
    const { store, id } = sessionWithFacts();
    const sessions = store.list({ includeArchived: true }).length;
    const short = JSON.parse(await store.exportSession(id));
    short.session.transcript_facts.pop();
    expect(() => store.importSession(parseExport(JSON.stringify(short)))).toThrow(
      'Not a valid Loom session export: session.transcript_facts: has 2 entries for 3 transcript messages.',
    );
    const wrong = JSON.parse(await store.exportSession(id));
    wrong.session.transcript_facts[2].prompt_tokens = -5;
    expect(() => store.importSession(parseExport(JSON.stringify(wrong)))).toThrow(/session\.transcript_facts\.2\.prompt_tokens/);
    const late = JSON.parse(await store.exportSession(id));
    late.session.model_changes[0].transcript_index = 9;
    expect(() => store.importSession(parseExport(JSON.stringify(late)))).toThrow(/session\.model_changes\.0\.transcript_index: 9 is past the end/);
    expect(store.list({ includeArchived: true })).toHaveLength(sessions);
  });

  it('Markdown and HTML show them briefly', async () => {
    const { store, id } = sessionWithFacts();
    const at = store.getTranscriptFacts(id)[2]!.at;
    const line = `${at} · gpt-4o · 1200 in / 300 out tokens · $0.0060 · first token after 420 ms · 55.5 tokens/s`;
    const markdown = await store.exportSession(id, 'markdown');
    expect(markdown).toContain(`### Assistant\n\n4.\n\n*${line}*`);
    expect(markdown).toMatch(/## Model changes\n\n- .*: model changed from gemma4 to gpt-4o \(from message 4\)/);
    const html = await store.exportSession(id, 'html');
    expect(html).toContain(`<p class="facts">${line}</p>`);
    expect(html).toContain('model changed from gemma4 to gpt-4o (from message 4)');
  });
});
