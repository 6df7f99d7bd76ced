/**
 * The importers' fixtures, written by these tests from each tool's documented format
 * (docs/DESIGN.md#importing-from-other-agents): tool calls (parallel ones, one left without
 * a result), compactions, branches, a sub-agent file, a malformed line and an entry type
 * no version of the importer knows. Each builder returns file text; the tests write it
 * into a temp folder laid out as the tool lays out its own.
 */
import fs from 'node:fs';
import path from 'node:path';

export const jsonl = (entries: unknown[]): string => entries.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('\n') + '\n';

export function writeFile(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

// ---- Claude Code ----

export const CLAUDE_SESSION = '5d1c0c8e-1111-4a2b-9c3d-000000000001';
const cc = (uuid: string, parentUuid: string | null, type: string, message: unknown, time: string, extra: Record<string, unknown> = {}) => ({
  parentUuid,
  isSidechain: false,
  userType: 'external',
  cwd: '/home/ada/lexer',
  sessionId: CLAUDE_SESSION,
  version: '2.0.55',
  type,
  message,
  uuid,
  timestamp: `2025-11-20T10:${time}.000Z`,
  ...extra,
});
const asst = (id: string, content: unknown[]) => ({ id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content });

/** The main line: prompt, one response with text and two parallel calls, results, an answer, a compaction, a second prompt. */
export function claudeMain(): unknown[] {
  return [
    { type: 'summary', summary: 'Lexer zebra fix', leafUuid: 'c-a4' },
    cc('c-u1', null, 'user', { role: 'user', content: 'Fix the zebra token bug in lexer.ts' }, '00:00'),
    cc('c-a1', 'c-u1', 'assistant', asst('msg_1', [{ type: 'text', text: 'Let me look at the lexer.' }]), '00:01'),
    cc('c-a2', 'c-a1', 'assistant', asst('msg_1', [{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: 'lexer.ts' } }]), '00:02'),
    cc('c-a3', 'c-a2', 'assistant', asst('msg_1', [{ type: 'tool_use', id: 'toolu_test', name: 'Bash', input: { command: 'npm test' } }]), '00:03'),
    cc('c-r1', 'c-a2', 'user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_read', content: 'export function lex() {}' }] }, '00:04'),
    cc(
      'c-r2',
      'c-a3',
      'user',
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_test', content: [{ type: 'text', text: '1 failing' }], is_error: true }] },
      '00:05',
    ),
    '{"type":"user","uuid":"broken", "message": {',
    { type: 'future-entry-kind', uuid: 'c-x', parentUuid: 'c-r2', payload: {} },
    cc('c-a4', 'c-r2', 'assistant', asst('msg_2', [{ type: 'text', text: 'Fixed: quoted zebra tokens are no longer skipped.' }]), '00:06'),
    cc('c-b', null, 'system', undefined, '00:07', {
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      logicalParentUuid: 'c-a4',
      compactMetadata: { trigger: 'manual', preTokens: 42000 },
    }),
    cc('c-s', 'c-b', 'user', { role: 'user', content: 'Summary: the lexer skipped quoted zebra tokens; fixed in lex().' }, '00:07', { isCompactSummary: true }),
    cc('c-u2', 'c-s', 'user', { role: 'user', content: 'Now add a regression test' }, '00:30'),
    cc('c-a5', 'c-u2', 'assistant', asst('msg_3', [{ type: 'text', text: 'Added test/lexer.test.ts.' }]), '00:31'),
  ];
}

/** A rewind: another prompt under the first answer, written earlier than the main line's tip; its call has no result. */
export function claudeBranch(): unknown[] {
  return [
    cc('c-u3', 'c-a4', 'user', { role: 'user', content: 'Actually, rename the function instead' }, '00:10'),
    cc('c-a6', 'c-u3', 'assistant', asst('msg_4', [{ type: 'tool_use', id: 'toolu_edit', name: 'Edit', input: { old: 'lex', new: 'tokenize' } }]), '00:11'),
  ];
}

/** What the session gains later: one more exchange at the tip of the main line. */
export function claudeGrowth(): unknown[] {
  return [
    cc('c-u4', 'c-a5', 'user', { role: 'user', content: 'Run the whole suite once more' }, '00:40'),
    cc('c-a7', 'c-u4', 'assistant', asst('msg_5', [{ type: 'text', text: 'All 212 tests pass.' }]), '00:41'),
  ];
}

/** A sub-agent's file (every line a sidechain, sessionId the parent's): beside the session up to 2.0, in <session>/subagents/ since 2.1. */
export function claudeSidechain(agentId = 'c0ffee01'): unknown[] {
  return [
    cc('s-u1', null, 'user', { role: 'user', content: 'Explore the tokenizer tables' }, '01:00', { isSidechain: true, agentId }),
    cc('s-a1', 's-u1', 'assistant', asst('msg_s1', [{ type: 'text', text: 'The tables live in tables.ts.' }]), '01:01', { isSidechain: true, agentId }),
  ];
}

// ---- Codex ----

export const CODEX_THREAD = '019a0000-aaaa-7bbb-8ccc-000000000002';
const line = (timestamp: string, type: string, payload: unknown) => ({ timestamp: `2025-12-01T09:${timestamp}.000Z`, type, payload });

export function codexRollout(): unknown[] {
  return [
    line('00:00', 'session_meta', {
      id: CODEX_THREAD,
      timestamp: '2025-12-01T09:00:00.000Z',
      cwd: '/home/ada/api',
      cli_version: '0.77.0',
      instructions: 'be brief',
    }),
    line('00:01', 'turn_context', { cwd: '/home/ada/api', model: 'gpt-5.2-codex' }),
    line('00:02', 'response_item', {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: '<environment_context>cwd</environment_context>' }],
    }),
    line('00:03', 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Why does the walrus endpoint return 500?' }] }),
    line('00:03', 'event_msg', { type: 'user_message', message: 'Why does the walrus endpoint return 500?' }),
    line('00:04', 'response_item', { type: 'reasoning', summary: [], encrypted_content: 'xyz' }),
    line('00:05', 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking the handler.' }] }),
    line('00:06', 'response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"grep -n walrus src"}', call_id: 'call_grep' }),
    line('00:07', 'response_item', { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch', call_id: 'call_patch', status: 'completed' }),
    line('00:08', 'response_item', { type: 'function_call_output', call_id: 'call_grep', output: 'src/walrus.ts:3: throw' }),
    line('00:09', 'compacted', { message: 'Summary: the walrus handler throws on empty bodies.' }),
    line('00:10', 'event_msg', { type: 'context_compacted' }),
    line('00:11', 'response_item', {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'The walrus handler now accepts empty bodies.' }],
    }),
    line('00:12', 'a_future_line_type', { anything: true }),
    line('00:13', 'event_msg', { type: 'thread_name_updated', thread_id: CODEX_THREAD, thread_name: 'Walrus 500s' }),
  ];
}

/** The layout before the {timestamp, type, payload} wrapper: a bare {id, timestamp, instructions} line, then bare items. */
export function codexLegacyRollout(): unknown[] {
  return [
    { id: '0190aaaa-bbbb-7ccc-8ddd-000000000003', timestamp: '2025-04-01T08:00:00.000Z', instructions: '' },
    { record_type: 'state' },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the pelican files' }] },
    { type: 'local_shell_call', call_id: 'call_ls', status: 'completed', action: { type: 'exec', command: ['ls'] } },
    { type: 'function_call_output', call_id: 'call_ls', output: { content: 'pelican.txt', success: true } },
  ];
}

// ---- Gemini CLI ----

export const GEMINI_SESSION = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const gAt = (time: string) => `2026-02-01T10:${time}.000Z`;
const gMessage = (id: string, type: string, content: unknown, time: string, extra: Record<string, unknown> = {}) => ({
  id,
  timestamp: gAt(time),
  type,
  content,
  ...extra,
});

/**
 * A session recording (JSON Lines): the metadata line, a reply written twice (its calls and
 * tokens added), a notice, a summary, a rewind and what followed it, a malformed line.
 */
export function geminiRecording(): unknown[] {
  const calls = [
    {
      id: 'call_run',
      name: 'run_shell_command',
      args: { command: 'npm test' },
      result: [{ functionResponse: { id: 'call_run', name: 'run_shell_command', response: { output: '1 failing' } } }],
      status: 'success',
      timestamp: gAt('00:03'),
    },
    { id: 'call_read', name: 'read_file', args: { path: 'heron.test.ts' }, status: 'cancelled', timestamp: gAt('00:03') },
  ];
  const reply = [{ text: '**Looking** at the test', thought: true }, { text: 'Let me run it.' }];
  return [
    { sessionId: GEMINI_SESSION, projectHash: 'f3a1', startTime: gAt('00:00'), lastUpdated: gAt('00:00'), kind: 'main' },
    gMessage('g-u0', 'user', [{ text: '<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>' }], '00:00'),
    gMessage('g-u1', 'user', [{ text: 'Why is the heron test flaky?' }], '00:01'),
    gMessage('g-a1', 'gemini', reply, '00:02', { model: 'gemini-2.5-pro' }),
    gMessage('g-a1', 'gemini', reply, '00:02', {
      model: 'gemini-2.5-pro',
      toolCalls: calls,
      tokens: { input: 1200, output: 80, cached: 0, total: 1280 },
    }),
    gMessage('g-i1', 'info', 'Switched to a faster model', '00:04'),
    gMessage('g-a2', 'gemini', 'The heron test races the clock.', '00:05', { model: 'gemini-2.5-pro' }),
    { $set: { lastUpdated: gAt('00:05'), summary: 'Flaky heron test' } },
    gMessage('g-u2', 'user', 'Fix it with fake timers', '01:00'),
    gMessage('g-a3', 'gemini', [{ text: 'Done with fake timers.' }], '01:05', { model: 'gemini-2.5-pro' }),
    { $rewindTo: 'g-u2' },
    gMessage('g-u3', 'user', 'Just retry it instead', '02:00'),
    '{"id": "g-half", "type": "gem',
    gMessage('g-a4', 'gemini', [{ text: 'Retries added.' }], '02:05', { model: 'gemini-2.5-pro' }),
    { $set: { lastUpdated: gAt('02:05') } },
  ];
}

/** A sub-agent's recording, nested under its parent's session id. */
export function geminiSubAgent(): unknown[] {
  return [
    { sessionId: 'heron-scout-1', projectHash: 'f3a1', startTime: gAt('00:10'), lastUpdated: gAt('00:11'), kind: 'subagent' },
    gMessage('s-u1', 'user', [{ text: 'Find every heron fixture' }], '00:10'),
    gMessage('s-a1', 'gemini', [{ text: 'Three fixtures.' }], '00:11', { model: 'gemini-2.5-flash' }),
  ];
}

/** A `/chat save` checkpoint: the setup context and its canned answer, calls and responses without ids. */
export function geminiCheckpoint(): unknown {
  return {
    history: [
      { role: 'user', parts: [{ text: 'This is the Gemini CLI. We are setting up the context for our chat.' }] },
      { role: 'model', parts: [{ text: 'Got it. Thanks for the context!' }] },
      { role: 'user', parts: [{ text: 'List the heron files' }] },
      {
        role: 'model',
        parts: [
          { text: 'Listing both folders', thought: true },
          { functionCall: { name: 'list_directory', args: { path: '.' } } },
          { functionCall: { name: 'list_directory', args: { path: 'test' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'list_directory', response: { output: 'heron.ts' } } },
          { functionResponse: { name: 'list_directory', response: { output: 'heron.test.ts' } } },
        ],
      },
      { role: 'model', parts: [{ text: 'Two heron files.' }] },
    ],
    authType: 'oauth-personal',
  };
}

// ---- pi ----

export const PI_V3 = 'b1e2c3d4-0000-4000-8000-000000000004';
const piMsg = (id: string, parentId: string | null, message: unknown, time: string) => ({
  type: 'message',
  id,
  parentId,
  timestamp: `2025-12-09T08:${time}.000Z`,
  message,
});

/** Version 3: a tree, a compaction, a second branch from the first answer; the last line is the active leaf. */
export function piTree(version = 3): unknown[] {
  return [
    { type: 'session', version, id: PI_V3, timestamp: '2025-12-09T08:00:00.000Z', cwd: '/home/ada/game' },
    piMsg('p1', null, { role: 'user', content: [{ type: 'text', text: 'Make the otter sprite jump' }], timestamp: 1 }, '00:01'),
    piMsg(
      'p2',
      'p1',
      {
        role: 'assistant',
        content: [{ type: 'toolCall', id: 'tc_1', name: 'bash', arguments: { command: 'ls sprites' } }],
        model: 'claude-opus-4-5',
        stopReason: 'toolUse',
      },
      '00:02',
    ),
    piMsg('p3', 'p2', { role: 'toolResult', toolCallId: 'tc_1', toolName: 'bash', content: [{ type: 'text', text: 'otter.png' }], isError: false }, '00:03'),
    piMsg(
      'p4',
      'p3',
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm' },
          { type: 'text', text: 'The otter now jumps.' },
        ],
        model: 'claude-opus-4-5',
      },
      '00:04',
    ),
    { type: 'session_info', id: 'p5', parentId: 'p4', timestamp: '2025-12-09T08:00:05.000Z', name: 'Otter jump' },
    {
      type: 'compaction',
      id: 'p6',
      parentId: 'p5',
      timestamp: '2025-12-09T08:00:06.000Z',
      summary: 'Otter jump done via sprite offsets.',
      firstKeptEntryId: 'p4',
      tokensBefore: 9000,
    },
    piMsg('p7', 'p4', { role: 'user', content: 'Or make it swim instead?' }, '00:07'),
    piMsg('p8', 'p7', { role: 'assistant', content: [{ type: 'text', text: 'Swimming otter added.' }] }, '00:08'),
    { type: 'hologram_entry', id: 'p9', parentId: 'p6' },
    piMsg('p10', 'p9', { role: 'user', content: 'Now add a splash sound' }, '00:10'),
    piMsg('p11', 'p10', { role: 'assistant', content: [{ type: 'text', text: 'Splash added.' }], model: 'claude-opus-4-5' }, '00:11'),
  ];
}

/** Version 1: no ids, a line; a compaction keeping from an entry index; a `!` command. */
export function piLinear(): unknown[] {
  return [
    {
      type: 'session',
      id: 'a0000000-0000-4000-8000-000000000005',
      timestamp: '2025-11-20T23:00:00.000Z',
      cwd: '/home/ada/notes',
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
    },
    { type: 'message', timestamp: '2025-11-20T22:59:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'Summarise the heron notes' }] } },
    { type: 'message', timestamp: '2025-11-20T22:59:10.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Herons wade.' }] } },
    {
      type: 'message',
      timestamp: '2025-11-20T22:59:20.000Z',
      message: { role: 'bashExecution', command: 'wc -l herons.md', output: '12 herons.md', exitCode: 0 },
    },
    { type: 'compaction', timestamp: '2025-11-20T22:59:30.000Z', summary: 'Heron notes summarised.', firstKeptEntryIndex: 2, tokensBefore: 500 },
  ];
}

// ---- opencode ----

export function opencodeExport(): unknown {
  const part = (id: string, type: string, extra: Record<string, unknown>) => ({ id, type, ...extra });
  return {
    info: {
      id: 'ses_0000beaver',
      title: 'Beaver dam calculator',
      directory: '/home/ada/dam',
      version: '1.15.7',
      time: { created: Date.parse('2026-01-05T12:00:00Z'), updated: Date.parse('2026-01-05T12:10:00Z') },
      revert: { messageID: 'msg_06' },
    },
    messages: [
      {
        info: { id: 'msg_01', role: 'user', time: { created: 1 } },
        parts: [part('prt_1', 'text', { text: 'Compute the beaver dam volume' }), part('prt_1b', 'text', { text: 'file body', synthetic: true })],
      },
      {
        info: { id: 'msg_02', role: 'assistant', parentID: 'msg_01', modelID: 'deepseek-v4-pro', time: { created: 2 } },
        parts: [
          part('prt_2', 'step-start', {}),
          part('prt_3', 'tool', { callID: 'call_calc', tool: 'bash', state: { status: 'completed', input: { command: 'python calc.py' }, output: '42 m3' } }),
          part('prt_4', 'tool', { callID: 'call_hang', tool: 'bash', state: { status: 'running', input: { command: 'sleep 99' } } }),
          part('prt_5', 'step-finish', {}),
        ],
      },
      {
        info: { id: 'msg_03', role: 'assistant', parentID: 'msg_01', modelID: 'deepseek-v4-pro', time: { created: 3 } },
        parts: [part('prt_6', 'text', { text: 'The dam holds 42 m3.' }), part('prt_7', 'quantum-part', {})],
      },
      { info: { id: 'msg_04', role: 'user', time: { created: 4 } }, parts: [part('prt_8', 'compaction', { auto: true })] },
      {
        info: { id: 'msg_05', role: 'assistant', summary: true, time: { created: Date.parse('2026-01-05T12:05:00Z') } },
        parts: [part('prt_9', 'text', { text: 'Summary: beaver dam is 42 m3.' })],
      },
      { info: { id: 'msg_06', role: 'user', time: { created: 6 } }, parts: [part('prt_10', 'text', { text: 'Convert it to gallons' })] },
      { info: { id: 'msg_07', role: 'assistant', time: { created: 7 } }, parts: [part('prt_11', 'text', { text: 'About 11,095 gallons.' })] },
    ],
  };
}

/** A pi message entry of text alone, in a tree by `parentId`. */
export function piEntry(id: string, parentId: string | null, role: string, text: string): unknown {
  return { type: 'message', id, parentId, timestamp: '2025-12-09T08:00:00.000Z', message: { role, content: [{ type: 'text', text }] } };
}

/** A pi session of `turns` turns, every turn but the first also answered on a side branch: `turns` sessions to write. */
export function branchyPi(turns: number): unknown[] {
  const lines: unknown[] = [{ type: 'session', version: 3, id: 'pi-branchy', timestamp: '2025-12-09T08:00:00.000Z' }];
  let answer: string | null = null;
  for (let t = 0; t < turns; t++) {
    if (answer) lines.push(piEntry(`r${t}`, answer, 'user', `side ${t}`), piEntry(`ra${t}`, `r${t}`, 'assistant', `side answer ${t}`));
    lines.push(piEntry(`u${t}`, answer, 'user', `main ${t}`), piEntry(`a${t}`, `u${t}`, 'assistant', `main answer ${t}`));
    answer = `a${t}`;
  }
  return lines;
}
