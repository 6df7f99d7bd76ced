import { describe, expect, it } from 'vitest';
import { ALL_TOOLS, parseToolArguments, toolSpecs, truncateToolResult } from '../../src/core/tools/index';
import { MAX_TOOL_RESULT_CHARS } from '../../src/core/tools/result';
import { readFileTool } from '../../src/core/tools/fs-tools';
import { todoListTool } from '../../src/core/tools/plan-tools';

describe('ALL_TOOLS', () => {
  it('has every tool of the agent, each declaring its effect', () => {
    expect(Object.fromEntries(ALL_TOOLS.map((t) => [t.name, t.effects.kind]))).toEqual({
      read_file: 'read',
      glob_files: 'read',
      grep: 'read',
      write_file: 'write-files',
      edit_file: 'write-files',
      run_bash: 'run-commands',
      webfetch: 'network',
      todo_append: 'plan',
      todo_list: 'read',
      todo_update: 'plan',
      read_scratchpad: 'read',
      write_scratchpad: 'plan',
      ask_question: 'interact',
      memory_save: 'loom-store',
      memory_search: 'loom-store',
      memory_forget: 'loom-store',
      search_sessions: 'read',
      read_session: 'read',
      run_subagent: 'interact',
    });
  });
});

describe('toolSpecs', () => {
  it('gives OpenAI function specs with strict JSON schemas, defaulted fields optional', () => {
    const specs = toolSpecs(ALL_TOOLS);
    expect(specs).toHaveLength(ALL_TOOLS.length);
    const read = specs.find((s) => s.function.name === 'read_file')!;
    expect(read).toMatchObject({ type: 'function', function: { description: expect.stringContaining('numbered lines') } });
    expect(read.function.parameters).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      properties: {
        path: { type: 'string', minLength: 1, maxLength: 4096 },
        offset: { type: 'integer', minimum: 1, default: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 2000, default: 200 },
      },
    });
    expect(read.function.parameters).not.toHaveProperty('$schema');
    for (const spec of specs) {
      expect(spec.function.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(spec.function.description.length).toBeGreaterThan(20);
    }
    expect(JSON.parse(JSON.stringify(specs))).toEqual(specs);
  });
});

describe('parseToolArguments', () => {
  it('applies defaults and accepts an empty string for no arguments', () => {
    expect(parseToolArguments(readFileTool, '{"path":"a.txt"}')).toEqual({ ok: true, args: { path: 'a.txt', offset: 1, limit: 200 } });
    expect(parseToolArguments(todoListTool, '')).toEqual({ ok: true, args: {} });
  });

  it('explains broken JSON and non-objects', () => {
    expect(parseToolArguments(readFileTool, '{"path": "a.txt"')).toEqual({
      ok: false,
      error: expect.stringMatching(/^Invalid arguments for read_file: not valid JSON \(.+\)\. Send one JSON object\. Allowed fields: path, offset, limit\.$/),
    });
    expect(parseToolArguments(readFileTool, '["a.txt"]')).toEqual({
      ok: false,
      error: 'Invalid arguments for read_file: expected a JSON object. Allowed fields: path, offset, limit.',
    });
  });

  it('names each wrong field and rejects unknown ones', () => {
    expect(parseToolArguments(readFileTool, '{"path": 3, "offset": "2", "encoding": "utf8"}')).toEqual({
      ok: false,
      error:
        'Invalid arguments for read_file: path: Invalid input: expected string, received number; ' +
        'offset: Invalid input: expected number, received string; unknown field "encoding". Allowed fields: path, offset, limit.',
    });
    expect(parseToolArguments(readFileTool, '{}')).toMatchObject({ ok: false, error: expect.stringContaining('path: Invalid input') });
  });
});

describe('truncateToolResult', () => {
  it('leaves short results alone', () => {
    expect(truncateToolResult('short')).toBe('short');
    const exact = 'x'.repeat(MAX_TOOL_RESULT_CHARS);
    expect(truncateToolResult(exact)).toBe(exact);
  });

  it('cuts long results to the limit with a notice giving the original size', () => {
    const out = truncateToolResult('y'.repeat(100_000));
    expect(out.length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS);
    expect(out.startsWith('yyyy')).toBe(true);
    expect(out.endsWith('\n[Result truncated: showing the first part of 100000 characters; the limit is 32768.]')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    for (const max of [200, 201]) {
      const out = truncateToolResult('😀'.repeat(100), max);
      expect(out.length).toBeLessThanOrEqual(max);
      expect(out.split('\n')[0]).toMatch(/^(😀)+$/u);
    }
  });
});
