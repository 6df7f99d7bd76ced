/**
 * Guarantee 10: imports are valid sessions. A real session with a tool call is recorded and
 * exported by `loom`, then its working context is edited the ways a broken or hostile export
 * would be: calls without results, results without calls, duplicated ids, a call split from
 * its result by a user message, a result for an unknown id, an assistant message with
 * nothing in it, odd and huge content. Each `loom --import` either repairs (one line on
 * stderr) or refuses (one line, exit 1, the store unchanged), and after a repair the
 * request `loom --resume` sends is one a strict OpenAI-compatible server accepts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_RESULT_ON_IMPORT } from '../../src/core/store/context-rules';
import { announcedId, inStore, runLoom, useLoomFixture, type Workspace } from '../cli-agent/support';
import type { ScriptedServer } from '../support/scripted-server';
import { strictChatViolations } from '../support/strict-chat-rules';

const ctx = useLoomFixture();
const SUMMARY = { text: 'Test session' };

/** [system, user, assistant calling call_1, tool result of call_1, assistant text], as `loom` recorded it. */
async function recordedExport(ws: Workspace, server: ScriptedServer): Promise<any> {
  fs.writeFileSync(path.join(ws.projectDir, 'notes.txt'), 'some notes\n');
  server.enqueue({ toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'Read it.' }, SUMMARY);
  const id = announcedId((await runLoom(ws, server.baseUrl, ['-p', 'read notes.txt'])).stderr);
  const doc = JSON.parse((await runLoom(ws, server.baseUrl, ['--export', id])).stdout);
  expect(doc.session.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
  return doc;
}

type Messages = any[];
const call = (id: string) => ({ id, type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } });
const result = (id: string, content = 'some notes') => ({ role: 'tool', tool_call_id: id, content });

async function importMessages(ws: Workspace, server: ScriptedServer, doc: any, messages: Messages) {
  const copy = structuredClone(doc);
  copy.session.messages = messages;
  const file = path.join(ws.root, 'edited.json');
  fs.writeFileSync(file, JSON.stringify(copy));
  return runLoom(ws, server.baseUrl, ['--import', file]);
}

/** Row counts of every table an import writes: equal before and after a refusal. */
function storeCounts(ws: Workspace): Record<string, number> {
  return inStore(ws, (store) =>
    Object.fromEntries(
      ['sessions', 'messages', 'transcript', 'context_starts', 'compactions', 'usage'].map((table) => [
        table,
        (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
      ]),
    ),
  );
}

/** Each case edits the recorded context [sys, user, assistant(call_1), tool(call_1), assistant]. */
const REFUSED: { name: string; edit: (m: Messages) => Messages; error: string }[] = [
  {
    name: 'a result without any call (orphan)',
    edit: (m) => [m[0], m[1], result('call_1')],
    error:
      'session.messages.2: a tool result for call "call_1", which is not a call of the assistant message before it (a result must follow its call, before any other message)',
  },
  {
    name: 'a result for an unknown id after a real call',
    edit: (m) => [...m.slice(0, 4), result('call_9'), m[4]],
    error:
      'session.messages.4: a tool result for call "call_9", which is not a call of the assistant message before it (a result must follow its call, before any other message)',
  },
  {
    name: 'a call split from its result by a user message',
    edit: (m) => [m[0], m[1], m[2], { role: 'user', content: 'wait' }, m[3], m[4]],
    error:
      'session.messages.4: a tool result for call "call_1", which is not a call of the assistant message before it (a result must follow its call, before any other message)',
  },
  {
    name: 'two calls with the same id in one message',
    edit: (m) => [m[0], m[1], { ...m[2], tool_calls: [call('call_1'), call('call_1')] }, m[3], result('call_1'), m[4]],
    error: 'session.messages.2: the assistant message makes two tool calls with the id "call_1"',
  },
  {
    name: 'a second result for the same call',
    edit: (m) => [...m.slice(0, 4), result('call_1', 'another answer'), m[4]],
    error: 'session.messages.4: a second result for tool call "call_1"',
  },
  {
    name: 'an assistant message with neither text nor calls',
    edit: (m) => [...m, { role: 'assistant', content: null }],
    error: 'session.messages.5: an assistant message with neither text nor tool calls',
  },
  {
    name: 'an empty tool_calls list',
    edit: (m) => [...m.slice(0, 4), { role: 'assistant', content: null, tool_calls: [] }],
    error: 'session.messages.4.tool_calls: Too small: expected array to have >=1 items',
  },
];

const REPAIRED: { name: string; edit: (m: Messages) => Messages; repaired: (m: Messages) => Messages }[] = [
  {
    name: 'a call without a result at the end (exported while the tool ran)',
    edit: (m) => m.slice(0, 3),
    repaired: (m) => [...m.slice(0, 3), result('call_1', NO_RESULT_ON_IMPORT)],
  },
  {
    name: 'a call without a result before the next assistant message',
    edit: (m) => [m[0], m[1], m[2], m[4]],
    repaired: (m) => [m[0], m[1], m[2], result('call_1', NO_RESULT_ON_IMPORT), m[4]],
  },
  {
    name: 'two calls, only the second answered',
    edit: (m) => [m[0], m[1], { ...m[2], tool_calls: [call('call_1'), call('call_2')] }, result('call_2'), m[4]],
    repaired: (m) => [m[0], m[1], { ...m[2], tool_calls: [call('call_1'), call('call_2')] }, result('call_2'), result('call_1', NO_RESULT_ON_IMPORT), m[4]],
  },
];

describe('10. Imports are valid sessions', () => {
  it('the strict checker the tests rely on rejects every edited context as it stands', async () => {
    const doc = await recordedExport(ctx.ws, ctx.server);
    const raw = doc.session.messages;
    expect(strictChatViolations({ messages: raw })).toEqual([]);
    for (const c of [...REFUSED, ...REPAIRED]) expect(strictChatViolations({ messages: c.edit(raw) }), c.name).not.toEqual([]);
  });

  it('refuses a result without its call, duplicated ids and empty assistant messages, with one line naming the message, storing nothing', async () => {
    const { ws, server } = ctx;
    const doc = await recordedExport(ws, server);
    const before = storeCounts(ws);
    for (const c of REFUSED) {
      const run = await importMessages(ws, server, doc, c.edit(doc.session.messages));
      expect({ case: c.name, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
        case: c.name,
        code: 1,
        stdout: '',
        stderr: `loom: Not a valid Loom session export: ${c.error}.\n`,
      });
    }
    expect(storeCounts(ws)).toEqual(before);
  });

  it('closes calls without a result, says so, and the resumed session sends a request a strict server accepts', async () => {
    const { ws, server } = ctx;
    const doc = await recordedExport(ws, server);
    for (const c of REPAIRED) {
      const run = await importMessages(ws, server, doc, c.edit(doc.session.messages));
      expect(run.code, c.name).toBe(0);
      const id = run.stdout.trim();
      expect(run.stderr).toBe(`loom: Imported session ${id}: closed 1 tool call that had no result in the export with a result saying so (nothing was run).\n`);
      inStore(ws, (store) => expect(store.getContext(id), c.name).toEqual(c.repaired(doc.session.messages)));

      server.enqueue({ text: 'Carrying on.' }, SUMMARY);
      const before = server.requests.length;
      const resumed = await runLoom(ws, server.baseUrl, ['--resume', id, '-p', 'carry on']);
      expect(resumed.code, c.name).toBe(0);
      // Nothing was left for resume to recover: the import had already closed the call.
      expect(resumed.stderr).not.toContain('Interrupted tool call');
      const sent = server.requests.slice(before).find((r) => r.body.tools)!.body;
      expect(strictChatViolations(sent), c.name).toEqual([]);
      expect(sent.messages.slice(1, -1)).toEqual(c.repaired(doc.session.messages).slice(1));
    }
  });

  it('imports odd and huge content as given, and the next request is still valid', async () => {
    const { ws, server } = ctx;
    const doc = await recordedExport(ws, server);
    const odd = 'nul\u0000 bell\u0007 escape\u001b[31mred\u001b[0m bidi\u202Eevil lone\uD800surrogate emoji🧵';
    const huge = 'x'.repeat(3 * 1024 * 1024);
    const messages = [...doc.session.messages.slice(0, 3), result('call_1', odd), { role: 'assistant', content: odd }];
    doc.session.transcript.push({ role: 'user', content: huge });
    doc.session.transcript_facts.push(null); // one entry per transcript message (docs/DESIGN.md#per-message-facts)
    const run = await importMessages(ws, server, doc, messages);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const id = run.stdout.trim();
    inStore(ws, (store) => expect(store.getTranscript(id).at(-1)).toEqual({ role: 'user', content: huge }));

    server.enqueue({ text: 'Fine.' }, SUMMARY);
    const before = server.requests.length;
    const resumed = await runLoom(ws, server.baseUrl, ['--resume', id, '-p', 'go on']);
    expect(resumed.code).toBe(0);
    const sent = server.requests.slice(before).find((r) => r.body.tools)!.body;
    expect(strictChatViolations(sent)).toEqual([]);
    // Control characters reach the model as they were; only the ill-formed surrogate is replaced.
    expect(sent.messages[3].content).toContain('nul\u0000 bell\u0007 escape\u001b[31mred');
    expect(sent.messages[3].content).toMatch(/lone\uFFFD+surrogate emoji🧵$/);
  });
});
