/**
 * Guarantee 9: model requests are bounded. The real `openai` client, alone and inside the
 * real `loom` command, against the scripted server playing a hostile model: one that
 * trickles a reply forever (never silent, never done), one that goes quiet midway, one that
 * streams 10 MB of text or of tool-call arguments, and one whose tool call is merely very
 * large. What is checked is what the user notices: how long it took, what was printed,
 * what the store holds, what the next request carried, and that no file was written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelClient } from '../../src/core/model/client';
import type { ModelError } from '../../src/core/model/model-error';
import { MAX_REPLY_CHARS } from '../../src/core/model/reply-assembler';
import { MAX_TOOL_ARGUMENT_CHARS } from '../../src/core/tools/arguments';
import { announcedId, inStore, runLoom, useLoomFixture } from '../cli-agent/support';
import { nth } from '../support/elements';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

const ctx = useLoomFixture();
const TEN_MB = 10 * 1024 * 1024;
const CUT_NOTE = `[reply cut at ${MAX_REPLY_CHARS.toLocaleString('en-US')} characters: the model server sent more than Loom keeps of one reply, and the rest was not read`;

/** 10 MB of text in 64 KiB pieces, each piece different so a cut shows where it fell. */
function tenMegabytes(): string[] {
  const piece = 64 * 1024;
  return Array.from({ length: TEN_MB / piece }, (_, i) => `${String(i).padStart(6, '0')}${'z'.repeat(piece - 6)}`);
}

const chatBodies = () => ctx.server.requests.map((r) => r.body).filter((b) => b.tools);
const loomLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('loom: '));

describe('guarantee 9: model requests are bounded', () => {
  describe('the model client on its own', () => {
    let server: ScriptedServer;
    beforeEach(async () => {
      server = await startScriptedServer();
    });
    afterEach(async () => {
      await server.close();
    });

    async function failure(promise: Promise<unknown>): Promise<ModelError> {
      try {
        await promise;
      } catch (err) {
        return err as ModelError;
      }
      throw new Error('expected the request to fail');
    }

    it('a reply trickled forever (a chunk every 100 ms) is stopped by the total timeout, which the idle one never reaches', async () => {
      server.enqueue({ trickleEveryMs: 100 });
      const client = new ModelClient({ baseUrl: server.baseUrl, apiKey: '', model: 'gemma4', timeoutMs: 2000, idleTimeoutMs: 1000 });
      const deltas: string[] = [];
      const started = Date.now();
      const err = await failure(client.chat({ messages: [{ role: 'user', content: 'hi' }], onText: (d) => deltas.push(d) }));
      const elapsed = Date.now() - started;
      expect(err.kind).toBe('timeout');
      expect(err.message).toBe(
        `The model server at ${server.baseUrl} did not finish its reply within 2 s. Check that it is not overloaded, or raise --llm-timeout.`,
      );
      // More chunks arrived than fit in one idle window: only the total could have stopped it.
      expect(deltas.length).toBeGreaterThan(10);
      expect(elapsed).toBeGreaterThanOrEqual(1990);
      expect(elapsed).toBeLessThan(10_000);
      expect(nth(server.requests, 0).streamed?.completed).toBe(false);
      expect(server.requests).toHaveLength(1);
    });

    it('a server that goes quiet midway is stopped by the idle timeout, long before the total', async () => {
      server.enqueue({ text: 'one two three four', stallAfterChunks: 2, hangMs: 30_000 });
      const client = new ModelClient({ baseUrl: server.baseUrl, apiKey: '', model: 'gemma4', timeoutMs: 60_000, idleTimeoutMs: 400 });
      const started = Date.now();
      const err = await failure(client.chat({ messages: [{ role: 'user', content: 'hi' }] }));
      expect(err.kind).toBe('timeout');
      expect(err.message).toContain('sent nothing for 1 s');
      expect(err.message).toContain('--llm-idle-timeout');
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('a 10 MB reply: reading stops at the cap, the text is kept up to it and ends with the note', async () => {
      const pieces = tenMegabytes();
      server.enqueue({ chunks: pieces });
      const client = new ModelClient({ baseUrl: server.baseUrl, apiKey: '', model: 'gemma4', timeoutMs: 60_000 });
      let shown = '';
      const result = await client.chat({ messages: [{ role: 'user', content: 'hi' }], onText: (d) => (shown += d) });
      const kept = pieces.join('').slice(0, MAX_REPLY_CHARS);
      expect(result.message.content).toBe(`${kept}\n\n${CUT_NOTE}.]`);
      expect(shown).toBe(result.message.content);
      expect(result.finishReason).toBe('length');
      // The client hung up: the server could not send the whole reply.
      expect(nth(server.requests, 0).streamed?.completed).toBe(false);
      expect(nth(server.requests, 0).streamed?.bytes).toBeLessThan(TEN_MB);
    });
  });

  describe('through the loom command', () => {
    it('--llm-timeout stops a reply trickled forever; --llm-idle-timeout a server gone quiet', async () => {
      ctx.server.enqueue({ trickleEveryMs: 100 }, { text: 'one two three', stallAfterChunks: 2, hangMs: 30_000 });
      const started = Date.now();
      const trickled = await runLoom(ctx.ws, ctx.server.baseUrl, ['--llm-timeout', '2', '--llm-idle-timeout', '1', '-p', 'hi']);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(trickled.code).toBe(1);
      expect(trickled.stdout).toMatch(/^drip 0 drip 1 .*drip 1\d /);
      expect(loomLines(trickled.stderr)).toEqual([
        `loom: The model server at ${ctx.server.baseUrl} did not finish its reply within 2 s. Check that it is not overloaded, or raise --llm-timeout.`,
      ]);

      const quiet = await runLoom(ctx.ws, ctx.server.baseUrl, ['--llm-timeout', '60', '--llm-idle-timeout', '1', '-p', 'hi']);
      expect(quiet.code).toBe(1);
      expect(loomLines(quiet.stderr)).toEqual([
        `loom: The model server at ${ctx.server.baseUrl} sent nothing for 1 s. Check that it is running and not overloaded, or raise --llm-idle-timeout.`,
      ]);
    });

    it('a 10 MB reply is stored cut with the note, and the next request carries only the cut version', async () => {
      const pieces = tenMegabytes();
      ctx.server.enqueue({ chunks: pieces }, { text: 'summary' }, { text: 'Fine.' });
      const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--max-context-tokens', '2000000'], 'flood me\nand now?\n');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(CUT_NOTE);
      expect(run.stdout.length).toBeLessThan(MAX_REPLY_CHARS + 10_000);
      expect(run.stdout).toContain('Assistant: Fine.');

      const cut = `${pieces.join('').slice(0, MAX_REPLY_CHARS)}\n\n${CUT_NOTE}.]`;
      const stored = inStore(ctx.ws, (store) => store.getContext(announcedId(run.stdout)));
      expect(
        nth(
          stored.filter((m) => m.role === 'assistant'),
          0,
        ).content,
      ).toBe(cut);
      const next = chatBodies()[1];
      expect(next.messages.filter((m: any) => m.role === 'assistant')[0].content).toBe(cut);
      expect(JSON.stringify(next).length).toBeLessThan(MAX_REPLY_CHARS + 100_000);
      expect(nth(ctx.server.requests, 0).streamed?.completed).toBe(false);
    });

    it('a 10 MB tool call is cut with its reply and never run; a 300 kB one is refused with a tool error', async () => {
      const huge = 'x'.repeat(TEN_MB);
      const large = 'y'.repeat(300_000);
      ctx.server.enqueue(
        { toolCalls: [{ id: 'huge', name: 'write_file', arguments: { path: 'huge.txt', content: huge } }], split: true },
        { text: 'summary' },
        { toolCalls: [{ id: 'large', name: 'write_file', arguments: { path: 'large.txt', content: large } }] },
        { text: 'Understood.' },
      );
      const run = await runLoom(ctx.ws, ctx.server.baseUrl, ['--mode', 'acceptEdits', '--max-context-tokens', '2000000'], 'write huge\nwrite large\n');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`${CUT_NOTE}; 1 tool call in it was dropped, not run.]`);
      const refusal = `Refused: the arguments of this write_file call are ${JSON.stringify({ path: 'large.txt', content: large }).length.toLocaleString('en-US')} characters, over the limit of ${MAX_TOOL_ARGUMENT_CHARS.toLocaleString('en-US')}; it was not run. Split the work into smaller calls.`;
      expect(run.stdout).toContain(`[write_file] -> ${refusal}`);
      expect(fs.existsSync(path.join(ctx.ws.projectDir, 'huge.txt'))).toBe(false);
      expect(fs.existsSync(path.join(ctx.ws.projectDir, 'large.txt'))).toBe(false);

      const [, second, third] = chatBodies();
      // The cut reply went back as text only; the refused call got its error as the result.
      expect(second.messages.filter((m: any) => m.role === 'assistant')[0]).toEqual({
        role: 'assistant',
        content: `${CUT_NOTE}; 1 tool call in it was dropped, not run.]`,
      });
      expect(third.messages.at(-1).content).toContain(refusal);
    });
  });
});
