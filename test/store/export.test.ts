import { describe, expect, it } from 'vitest';
import { LoomError } from '../../src/core/errors';
import { parseExport } from '../../src/core/store/export-schema';
import type { SessionStore } from '../../src/core/store/session-store';
import { nth } from '../support/elements';
import { assistant, conversation, openStore, system, tool, user } from './helpers';

const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz123456';

function richSession(store: SessionStore): string {
  const { id } = store.create({ model: 'gemma4', cwd: '/home/me/project', title: 'Parser work', messages: conversation() });
  store.setSummary(id, 'Fixed the parser');
  store.recordCompaction(id, {
    messages: [system(), user('<session_context_data>summary</session_context_data>'), assistant('I fixed the parser.')],
    compaction: { at: '2026-01-02T03:04:05.000Z', before_tokens: 900, after_tokens: 300, summary: 'summary' },
    usage: { prompt_tokens: 900, completion_tokens: 50, cost_usd: 0 },
  });
  store.recordUsage(id, 'chat', { prompt_tokens: 1200, completion_tokens: 300, cost_usd: 0.002 });
  store.savePlan(id, { todos: [{ id: 1, text: 'Fix the parser', status: 'done', retries: 0 }], scratchpad: 'parser.ts line 3' });
  store.setArchived(id, true);
  return id;
}

describe('JSON export', () => {
  it('writes the version 3 document of docs/DESIGN.md#export-format (the fork point and the context start included), pretty-printed', async () => {
    const store = openStore();
    const id = richSession(store);
    const text = await store.exportSession(id);
    expect(text).toContain('\n  "format": "loom-session",\n');
    const doc = JSON.parse(text);
    expect(Object.keys(doc)).toEqual(['format', 'version', 'exported_at', 'session']);
    expect(doc).toMatchObject({ format: 'loom-session', version: 3 });
    expect(new Date(doc.exported_at).toISOString()).toBe(doc.exported_at);
    expect(Object.keys(doc.session)).toEqual([
      'id',
      'parent_id',
      'fork',
      'title',
      'summary',
      'status',
      'archived',
      'created_at',
      'updated_at',
      'model',
      'cwd',
      'messages',
      'context_start',
      'transcript',
      'compactions',
      'plan',
      'usage',
      'transcript_facts',
      'model_changes',
    ]);
    // The project folder is chosen on this device and is never exported (docs/DESIGN.md#the-project-folder), nor is a pin on its sidebar.
    const { message_count, project_dir, pinned, agent, agent_changes, ...record } = store.get(id);
    // A session that never chose an agent exports as before agents were recorded.
    expect([agent, agent_changes]).toEqual([null, []]);
    expect(message_count).toBe(5);
    expect(project_dir).toBeNull();
    expect(pinned).toBe(false);
    const { fork, context_start, ...v1 } = doc.session;
    expect(v1).toEqual(record);
    expect(fork).toBeNull();
    // The compaction kept the last message: the summary is the only message of its own.
    expect(context_start).toEqual({ kept_from: 4, with_system: true, head: [user('<session_context_data>summary</session_context_data>')] });
    // The compaction keys of docs/DESIGN.md#export-format, with where in the transcript it happened.
    expect(doc.session.compactions).toEqual([
      { at: '2026-01-02T03:04:05.000Z', before_tokens: 900, after_tokens: 300, summary: 'summary', transcript_index: 5 },
    ]);
  });

  it('imports compactions without a transcript position (older exports) and exports them without one', async () => {
    const store = openStore();
    const doc = JSON.parse(await store.exportSession(richSession(store)));
    delete doc.session.compactions[0].transcript_index;
    const { id } = store.importSession(parseExport(JSON.stringify(doc))).meta;
    expect(store.getCompactions(id)).toEqual([{ at: '2026-01-02T03:04:05.000Z', before_tokens: 900, after_tokens: 300, summary: 'summary' }]);
    expect(Object.keys(JSON.parse(await store.exportSession(id)).session.compactions[0])).toEqual(['at', 'before_tokens', 'after_tokens', 'summary']);
  });

  it('round-trips through import as a new saved session with the same content', async () => {
    const store = openStore();
    const id = richSession(store);
    const fork = store.fork(id);
    const original = store.get(fork.id);
    const imported = store.importSession(parseExport(await store.exportSession(fork.id))).meta;
    expect(imported.id).not.toBe(fork.id);
    expect(imported).toMatchObject({
      status: 'saved',
      parent_id: id,
      title: 'Parser work · fork at 5',
      summary: 'Fixed the parser',
      archived: false,
      created_at: original.created_at,
      model: 'gemma4',
      cwd: '/home/me/project',
      message_count: 5,
    });
    const copy = store.get(imported.id);
    for (const key of ['messages', 'transcript', 'compactions', 'plan', 'usage'] as const) expect(copy[key]).toEqual(original[key]);
    // The archived flag is kept as exported.
    expect(store.importSession(parseExport(await store.exportSession(id))).meta.archived).toBe(true);
    // An import is a session like any other: searchable, and independent of its source.
    expect(store.search('parser', { includeArchived: true }).map((h) => h.id)).toContain(imported.id);
    store.delete(fork.id);
    expect(store.getTranscript(imported.id)).toEqual(original.transcript);
  });

  it('still imports version 1 (no fork point, no context start): the context is rebuilt from messages', async () => {
    const store = openStore();
    const id = richSession(store);
    const doc = JSON.parse(await store.exportSession(id));
    delete doc.session.fork;
    delete doc.session.context_start;
    const { meta } = store.importSession(parseExport(JSON.stringify({ ...doc, version: 1 })));
    expect(store.getContext(meta.id)).toEqual(store.getContext(id));
    expect(store.getTranscript(meta.id)).toEqual(store.getTranscript(id));
  });

  it('imports into another data folder', async () => {
    const from = openStore();
    const id = richSession(from);
    const to = openStore();
    const { meta } = to.importSession(parseExport(await from.exportSession(id)));
    expect(to.getTranscript(meta.id)).toEqual(from.getTranscript(id));
    expect(to.getContext(meta.id)).toEqual(from.getContext(id));
  });
});

describe('import validation', () => {
  const valid = async () => {
    const store = openStore();
    return { store, doc: JSON.parse(await store.exportSession(richSession(store))) };
  };

  const cases: [string, (doc: any) => unknown, string][] = [
    ['wrong format', (d) => ({ ...d, format: 'other-app' }), 'Not a Loom session export: "format" must be "loom-session" (got "other-app").'],
    ['no format', (d) => ({ ...d, format: undefined }), 'Not a Loom session export: "format" must be "loom-session" (got nothing).'],
    ['wrong version', (d) => ({ ...d, version: 4 }), 'Unsupported Loom session export version 4; this Loom reads versions 1 to 3.'],
    [
      'a context start past the transcript',
      (d) => {
        d.session.context_start.kept_from = 6;
        return d;
      },
      'Not a valid Loom session export: session.context_start.kept_from: past the end of the transcript (5 messages).',
    ],
    ['version 1 with version 2 fields', (d) => ({ ...d, version: 1 }), 'Not a valid Loom session export: session: Unrecognized keys: "fork", "context_start"'],
    [
      'a message with an unknown role',
      (d) => {
        d.session.transcript[1].role = 'wizard';
        return d;
      },
      'Not a valid Loom session export: session.transcript.1.role:',
    ],
    ['an extra field', (d) => ({ ...d, session: { ...d.session, extra: 1 } }), 'Not a valid Loom session export: session: Unrecognized key: "extra"'],
    [
      'a missing field',
      (d) => {
        delete d.session.plan;
        return d;
      },
      'Not a valid Loom session export: session.plan:',
    ],
    [
      'a bad timestamp',
      (d) => {
        d.session.created_at = 'yesterday';
        return d;
      },
      'Not a valid Loom session export: session.created_at:',
    ],
    [
      'negative tokens',
      (d) => {
        d.session.usage.prompt_tokens = -1;
        return d;
      },
      'Not a valid Loom session export: session.usage.prompt_tokens:',
    ],
    [
      'a compaction past the transcript',
      (d) => {
        d.session.compactions[0].transcript_index = 6;
        return d;
      },
      'Not a valid Loom session export: session.compactions.0.transcript_index: 6 is past the end of the transcript (5 messages).',
    ],
    [
      'a fractional compaction position',
      (d) => {
        d.session.compactions[0].transcript_index = 2.5;
        return d;
      },
      'Not a valid Loom session export: session.compactions.0.transcript_index:',
    ],
    ['an array', () => [], 'Not a Loom session export: "format" must be "loom-session" (got nothing).'],
  ];

  it.each(cases)('rejects %s with one clear LoomError and adds nothing', async (_name, mutate, message) => {
    const { store, doc } = await valid();
    const before = store.list({ includeArchived: true });
    let error: unknown;
    try {
      store.importSession(parseExport(JSON.stringify(mutate(doc))));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LoomError);
    expect((error as Error).message.startsWith(message.replace(/:$/, ''))).toBe(true);
    expect((error as Error).message).not.toContain('\n');
    expect(store.list({ includeArchived: true })).toEqual(before);
  });

  it('rejects text that is not JSON', () => {
    const store = openStore();
    expect(() => store.importSession(parseExport('# a markdown export'))).toThrow('Not a Loom session export: the file is not valid JSON.');
    expect(() => store.importSession(parseExport(''))).toThrow(LoomError);
    expect(store.list()).toEqual([]);
  });
});

describe('Markdown and HTML exports', () => {
  it('renders a readable Markdown transcript with tool calls and results', async () => {
    const store = openStore();
    const id = richSession(store);
    const md = await store.exportSession(id, 'markdown');
    expect(md.startsWith('# Parser work\n')).toBe(true);
    expect(md).toContain('### User\n\nPlease fix the parser.');
    expect(md).toContain('**Tool call** `read_file` (`call_1`)');
    expect(md).toContain('{"path":"src/parser.ts"}');
    expect(md).toContain('### Tool result (`call_1`)\n\n```\nexport function parse() { return 1; }\n```');
    expect(md).toContain('### Assistant\n\nI fixed the parser.');
    expect(md).toContain('900 → 300 tokens');
    expect(md).toContain('- [x] Fix the parser (done)');
  });

  it('keeps code fences in tool output from breaking the Markdown', async () => {
    const store = openStore();
    const { id } = store.create({ messages: [tool('c', 'before\n```\nnot the end\n```\nafter')] });
    expect(await store.exportSession(id, 'markdown')).toContain('````\nbefore\n```\nnot the end\n```\nafter\n````');
  });

  it('renders a self-contained HTML page with every string escaped and no scripts', async () => {
    const store = openStore();
    const hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">';
    const { id } = store.create({
      title: `Title ${hostile}`,
      model: `model ${hostile}`,
      messages: [user(`hi ${hostile}`), assistant(null, [{ id: 'c1', name: `tool${hostile}`, args: `{"a":"${hostile}"}` }]), tool('c1', `out ${hostile}`)],
    });
    const html = await store.exportSession(id, 'html');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src data:; base-uri 'none'; form-action 'none'">/,
    );
    const tags = new Set([...html.matchAll(/<\/?([a-zA-Z!][a-zA-Z0-9]*)/g)].map((m) => nth(m, 1).toLowerCase()));
    const allowed = [
      '!doctype',
      'html',
      'head',
      'meta',
      'title',
      'style',
      'body',
      'main',
      'h1',
      'h2',
      'h3',
      'p',
      'dl',
      'dt',
      'dd',
      'section',
      'div',
      'pre',
      'code',
      'ul',
      'li',
    ];
    expect([...tags].filter((t) => !allowed.includes(t))).toEqual([]);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
    expect(html).not.toMatch(/@import|url\(/i);
  });
});

describe('secret redaction', () => {
  it('hides secret-looking values in all three formats', async () => {
    const store = openStore();
    const { id } = store.create({
      title: `key ${SECRET}`,
      messages: [
        user(`my key is ${SECRET}`),
        assistant(null, [{ id: 'c1', name: 'shell', args: `{"command":"export API_KEY=supersecretvalue1"}` }]),
        tool('c1', `token=${SECRET}`),
      ],
    });
    for (const format of ['json', 'markdown', 'html'] as const) {
      const text = await store.exportSession(id, format);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('supersecretvalue1');
      expect(text).toContain('[REDACTED]');
    }
    expect(JSON.parse(await store.exportSession(id))).toHaveProperty('format', 'loom-session');
    expect(nth(store.getTranscript(id), 0).content).toContain(SECRET); // the store itself is unchanged
  });

  // Redaction skips strings without any pattern's literal part (most of a session): every
  // kind of secret must still be caught deep inside long text, in any letter case the
  // pattern allows, in every place a string can be.
  it.each([
    ['an OpenAI key', 'sk-proj-abcdefghijklmnopqrstuvwxyz0123'],
    ['a GitHub token', 'ghs_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['a Slack token', 'xoxp-1234567890-abcdefghij'],
    ['an AWS key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['a bearer token', 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456', 'abcdefghijklmnopqrstuvwxyz123456'],
    ['a private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXk'],
    ['URL credentials', 'HTTPS://deploy:Tr0ub4dor3@git.example.com/x.git', 'Tr0ub4dor3'],
    ['an upper-case assignment', 'MY_APP_PASSWD=correcthorsebattery', 'correcthorsebattery'],
    ['a mixed-case JSON field', '{"Api-Key": "0123456789abcdef"}', '0123456789abcdef'],
    ['a YAML secret', 'clientSecret: s3cr3t-v4lu3-xyz', 's3cr3t-v4lu3-xyz'],
  ])('finds %s anywhere in a long session', async (_what, text, secret = text) => {
    const store = openStore();
    const filler = 'The parser reads one line at a time and keeps the indentation. '.repeat(400);
    const { id } = store.create({
      title: `notes ${text}`,
      messages: [user(`${filler}${text} ${filler}`), assistant(null, [{ id: 'c1', name: 'shell', args: `echo ${text}` }]), tool('c1', `${filler}\n${text}\n`)],
    });
    store.savePlan(id, { todos: [{ id: 1, text: `rotate ${text}`, status: 'pending', retries: 0 }], scratchpad: text });
    for (const format of ['json', 'markdown', 'html'] as const) {
      const exported = await store.exportSession(id, format);
      // Booleans: a failure should not print the whole long export.
      expect(exported.includes(secret) || exported.includes(JSON.stringify(secret).slice(1, -1)), format).toBe(false);
      expect(exported.split('[REDACTED]').length - 1, format).toBeGreaterThanOrEqual(5);
    }
    // Text that only looks close is left alone.
    const plain = `${filler}The token count is 512; see src/auth/token.ts and skip-list.`;
    const { id: other } = store.create({ messages: [user(plain)] });
    expect(JSON.parse(await store.exportSession(other)).session.transcript[0].content === plain).toBe(true);
  });

  it('refuses an unknown format', async () => {
    const store = openStore();
    const { id } = store.create();
    await expect(store.exportSession(id, 'pdf' as never)).rejects.toThrow('Unknown export format "pdf"; use json, markdown, html.');
  });
});
