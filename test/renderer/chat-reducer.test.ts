/**
 * The chat reducer, event by event: what each event does to a tab's state, and that a
 * replayed, late or out-of-order one changes nothing (the same state object comes back).
 */
import { describe, expect, it } from 'vitest';
import { chatReducer, INITIAL_CHAT_STATE, type ChatEvent, type ChatState } from '../../src/renderer/state/chat-reducer';
import type { ContextState } from '../../src/shared/contract';

const sessionId = 's1';
const user = (seq: number, content = 'hi'): ChatEvent => ({ type: 'message', sessionId, seq, message: { role: 'user', content }, facts: { at: 't' } });
const reply = (seq: number, content = 'hello'): ChatEvent => ({ type: 'message', sessionId, seq, message: { role: 'assistant', content }, facts: { at: 't' } });
const text = (at: number, delta: string): ChatEvent => ({ type: 'text', sessionId, at, delta });
const toolStart = (seq: number, callId = 'c1'): ChatEvent => ({ type: 'tool_start', sessionId, seq, callId, name: 'read_file', effect: 'read', args: '{}' });
const toolEnd = (seq: number, callId = 'c1'): ChatEvent => ({ type: 'tool_end', sessionId, seq, callId, name: 'read_file', effect: 'read', result: 'ok' });
const turn = (phase: 'start' | 'end', error?: string): ChatEvent => ({ type: 'turn', sessionId, phase, ...(error ? { error } : {}) });
const retry = (attempt: number): ChatEvent => ({
  type: 'notice',
  sessionId,
  level: 'info',
  text: `Cannot reach it. Retrying in 1 s (retry ${attempt} of 3).`,
  retry: { problem: 'Cannot reach it.', attempt, maxRetries: 3, delayMs: 1000 },
});
const failedTurn: ChatEvent = {
  type: 'turn',
  sessionId,
  phase: 'end',
  error: 'Cannot reach it. Pass --base-url.',
  failure: { problem: 'Cannot reach it.', advice: 'start_server' },
};
const child = { childId: 'c9', callId: 'call_1', agent: 'build', task: 'write the notes' };
const question = (requestId: string): ChatEvent => ({ type: 'question', sessionId, requestId, question: 'Which?' });
const context = (patch: Partial<ContextState> = {}): ContextState => ({
  contextTokens: 10,
  maxContextTokens: 100,
  busy: false,
  replyInFlight: '',
  instructions: null,
  modelWindow: null,
  ...patch,
});
const loaded = (messageCount: number, patch: Partial<ContextState> = {}, turnEventsAsked = 0): ChatEvent => ({
  type: 'loaded',
  messageCount,
  context: context(patch),
  pending: [],
  compactions: null,
  turnEventsAsked,
});
const approval = (requestId: string): ChatEvent => ({
  type: 'approval',
  sessionId,
  requestId,
  tool: 'write_file',
  effect: 'write-files',
  summary: 'write_file notes.md',
  label: 'Writes a file',
  preview: null,
  offer: null,
});

const run = (events: ChatEvent[], from: ChatState = INITIAL_CHAT_STATE) => events.reduce(chatReducer, from);

describe('chatReducer', () => {
  const cases: { name: string; events: ChatEvent[]; expected: Partial<ChatState> }[] = [
    { name: 'a message counts up to its position', events: [user(1)], expected: { total: 2, newestSeq: 1 } },
    { name: 'a committed reply replaces the one streaming', events: [turn('start'), text(0, 'hel'), reply(2)], expected: { streaming: '', total: 3 } },
    { name: 'reply pieces join at their place', events: [text(0, 'Alpha '), text(6, 'beta '), text(0, 'Alpha ')], expected: { streaming: 'Alpha beta ' } },
    {
      name: 'a piece ahead waits for the reply so far',
      events: [text(6, 'beta '), loaded(2, { busy: true, replyInFlight: 'Alpha ' })],
      expected: { streaming: 'Alpha beta ' },
    },
    { name: 'a tool runs from its start to its end', events: [turn('start'), toolStart(3)], expected: { runningTools: [{ callId: 'c1', name: 'read_file' }] } },
    { name: 'an ended tool is not running', events: [toolStart(3), toolEnd(3)], expected: { runningTools: [] } },
    { name: 'a tool whose result is in is not running', events: [user(3), toolStart(3)], expected: { runningTools: [] } },
    { name: 'a question is asked once', events: [question('q1'), question('q1')], expected: { questions: [{ requestId: 'q1', question: 'Which?' }] } },
    { name: 'an answered question goes', events: [question('q1'), { type: 'answered', requestId: 'q1' }], expected: { questions: [] } },
    {
      name: "a sub-agent's question keeps the child it names",
      events: [{ type: 'question', sessionId, requestId: 'q1', question: 'Which?', subagent: child }],
      expected: { questions: [{ requestId: 'q1', question: 'Which?', subagent: child }] },
    },
    {
      name: "a reloaded view's pending requests keep the child they name",
      events: [
        turn('start'),
        {
          type: 'loaded',
          messageCount: 2,
          context: context({ busy: true }),
          pending: [
            { kind: 'question', requestId: 'q1', question: 'Which?', subagent: child },
            {
              kind: 'approval',
              requestId: 'a1',
              tool: 'write_file',
              effect: 'write-files',
              summary: 's',
              label: 'l',
              preview: null,
              offer: null,
              subagent: child,
            },
          ],
          compactions: null,
          turnEventsAsked: 1,
        },
      ],
      expected: {
        questions: [{ requestId: 'q1', question: 'Which?', subagent: child }],
        approvals: [{ requestId: 'a1', tool: 'write_file', effect: 'write-files', summary: 's', label: 'l', preview: null, offer: null, subagent: child }],
      },
    },
    { name: 'a turn runs, then ends with its error', events: [turn('start'), turn('end', 'Model down.')], expected: { phase: 'idle', error: 'Model down.' } },
    {
      name: 'a compaction within a turn goes back to running',
      events: [
        turn('start'),
        { type: 'compaction', sessionId, phase: 'start' },
        { type: 'compaction', sessionId, phase: 'done', before_tokens: 9, after_tokens: 2 },
      ],
      expected: { phase: 'running', contextTokens: 2 },
    },
    { name: 'Compact now waits as compacting', events: [{ type: 'compact_requested' }], expected: { phase: 'compacting' } },
    { name: 'a load never lowers the count', events: [user(4), loaded(3)], expected: { total: 5, loaded: true } },
    {
      name: 'a load with no turn running clears the live state',
      events: [turn('start'), text(0, 'x'), question('q1'), loaded(2, {}, 1)],
      expected: { streaming: '', questions: [], phase: 'idle' },
    },
    {
      name: 'a load asked before the turn started keeps that turn’s approval',
      events: [turn('start'), toolStart(1), approval('a1'), loaded(1, {}, 0)],
      expected: {
        phase: 'running',
        inTurn: true,
        total: 1,
        runningTools: [{ callId: 'c1', name: 'read_file' }],
        approvals: [
          { requestId: 'a1', tool: 'write_file', effect: 'write-files', summary: 'write_file notes.md', label: 'Writes a file', preview: null, offer: null },
        ],
      },
    },
    { name: 'a failed page says so', events: [{ type: 'load_failed', error: 'Gone.' }], expected: { loaded: true, loadError: 'Gone.' } },
    {
      name: 'a success clears its own retry notices, not its warnings',
      events: [
        turn('start'),
        { type: 'notice', sessionId, level: 'info', text: 'Retrying' },
        { type: 'notice', sessionId, level: 'warning', text: 'Cap' },
        turn('end'),
      ],
      expected: { notices: [{ id: 2, level: 'warning', text: 'Cap', duringTurn: true }] },
    },
    {
      name: 'each retry replaces the one line about the model server, and no notice piles up',
      events: [turn('start'), retry(1), retry(2), retry(3)],
      expected: { retry: { problem: 'Cannot reach it.', attempt: 3, maxRetries: 3, delayMs: 1000 }, notices: [] },
    },
    {
      name: 'a failed turn puts its failure, advice apart, in the retry line’s place',
      events: [turn('start'), retry(1), failedTurn],
      expected: { retry: null, error: 'Cannot reach it. Pass --base-url.', failure: { problem: 'Cannot reach it.', advice: 'start_server' } },
    },
    { name: 'a turn that succeeds after a retry leaves no line', events: [turn('start'), retry(1), turn('end')], expected: { retry: null, error: null } },
    { name: 'a new turn clears the last one’s failure', events: [failedTurn, turn('start')], expected: { error: null, failure: null } },
  ];
  it.each(cases)('$name', ({ events, expected }) => {
    expect(run(events)).toMatchObject(expected);
  });

  // The old race: events replayed, late, or crossing a load; each leaves the state as it was.
  const harmless: { name: string; before: ChatEvent[]; again: ChatEvent }[] = [
    { name: 'the same message twice', before: [user(1), reply(2)], again: reply(2) },
    { name: 'an older message after a newer one', before: [user(1), reply(2), user(3)], again: reply(2) },
    { name: 'an older reply while the next one streams', before: [reply(2), user(3), text(0, 'Next')], again: reply(2) },
    { name: 'a message a load already counted', before: [loaded(5), reply(4)], again: reply(4) },
    { name: 'a tool start after its result', before: [toolStart(3), user(3), toolEnd(3)], again: toolStart(3) },
    { name: 'a tool end twice', before: [toolStart(3), toolEnd(3)], again: toolEnd(3) },
    { name: 'a reply piece already shown', before: [text(0, 'Alpha beta')], again: text(0, 'Alpha ') },
    { name: 'a question already shown', before: [question('q1')], again: question('q1') },
    { name: 'a page shorter than what was seen live', before: [user(1), reply(2)], again: { type: 'page_fetched', total: 2 } },
  ];
  it.each(harmless)('is unchanged by $name', ({ before, again }) => {
    const state = run(before);
    expect(chatReducer(state, again)).toBe(state);
  });

  it('gives the same state for a message stream with every event sent twice', () => {
    const stream = [turn('start'), user(1), text(0, 'Hel'), text(3, 'lo'), reply(2), turn('end')];
    expect(run(stream.flatMap((event) => [event, event]))).toEqual(run(stream));
  });
});
