import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { AUDIT_EVENTS, auditDir, AuditLog, MAX_AUDIT_STRING } from '../../src/core/audit/audit-log';
import { REDACTED } from '../../src/core/security/secrets';

let root: string;
let dir: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-audit-'));
  dir = path.join(root, 'audit');
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const lines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('AuditLog', () => {
  test('one JSON object per line with ts, session and event, in a private file per session', () => {
    const log = new AuditLog(dir, 'sess-1');
    log.write('session_start', { cwd: '/work', model: 'gemma4' });
    log.write('user_message', { text: 'hello' });
    log.write('session_end');
    expect(log.file).toBe(path.join(dir, 'sess-1.jsonl'));
    const records = lines(log.file);
    expect(records.map((r) => r.event)).toEqual(['session_start', 'user_message', 'session_end']);
    for (const r of records) {
      expect(r.session).toBe('sess-1');
      expect(new Date(r.ts).toISOString()).toBe(r.ts);
    }
    expect(records[0]).toMatchObject({ cwd: '/work', model: 'gemma4' });
    expect(fs.statSync(log.file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  });

  test('data cannot overwrite ts, session or event', () => {
    const log = new AuditLog(dir, 's');
    log.write('config', { ts: 'fake', session: 'other', event: 'session_end', mode: 'default' });
    const [r] = lines(log.file);
    expect(r).toMatchObject({ session: 's', event: 'config', mode: 'default' });
    expect(r.ts).not.toBe('fake');
  });

  test('sessions append to their own file; a second log for the same session appends', () => {
    new AuditLog(dir, 'a').write('session_start');
    new AuditLog(dir, 'b').write('session_start');
    new AuditLog(dir, 'a').write('session_end');
    expect(lines(path.join(dir, 'a.jsonl')).map((r) => r.event)).toEqual(['session_start', 'session_end']);
    expect(lines(path.join(dir, 'b.jsonl'))).toHaveLength(1);
  });

  test('a session id cannot name a file outside the audit folder', () => {
    const log = new AuditLog(dir, '../../escape');
    log.write('session_start');
    expect(path.dirname(log.file)).toBe(dir);
    expect(fs.existsSync(path.join(root, '..', 'escape.jsonl'))).toBe(false);
  });

  test('large strings are stored cut, with the size and sha256 of the full text', () => {
    const log = new AuditLog(dir, 's');
    const big = 'é'.repeat(6000);
    log.write('tool_result', { tool: 'read_file', result: big, call_id: 'c1' });
    const [r] = lines(log.file);
    expect(r.tool).toBe('read_file');
    expect(r.result.truncated).toBe('é'.repeat(MAX_AUDIT_STRING));
    expect(r.result.size).toBe(Buffer.byteLength(big));
    expect(r.result.sha256).toBe(createHash('sha256').update(big).digest('hex'));
    expect(fs.statSync(log.file).size).toBeLessThan(Buffer.byteLength(big));
  });

  test('every string is redacted, at any depth, including inside cut text', () => {
    const log = new AuditLog(dir, 's');
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
    log.write('llm_request', {
      messages: [{ role: 'user', content: `my key is ${key}` }],
      headers: { authorization: 'Bearer abcdefghijklmnopqrstuvwxyz0123456789' },
      // The secret straddles the cut: it must be redacted before cutting.
      big: `${'x'.repeat(MAX_AUDIT_STRING - 10)} ${key}`,
    });
    const text = fs.readFileSync(log.file, 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain('sk-proj-abcdefgh');
    expect(text).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
    const [r] = lines(log.file);
    expect(r.messages[0].content).toBe(`my key is ${REDACTED}`);
    expect(r.big.truncated.endsWith(REDACTED.slice(0, 9))).toBe(true);
  });

  test('numbers, booleans, null, errors and circular data are written sensibly', () => {
    const log = new AuditLog(dir, 's');
    const circular: Record<string, unknown> = { n: 1 };
    circular.self = circular;
    log.write('llm_call_error', { status: 500, retried: true, body: null, error: new Error('boom'), circular });
    const [r] = lines(log.file);
    expect(r).toMatchObject({ status: 500, retried: true, body: null, error: 'boom', circular: { n: 1, self: '[circular]' } });
  });

  test('a failed write never throws into the agent and is reported once', () => {
    const blocker = path.join(root, 'not-a-dir');
    fs.writeFileSync(blocker, 'file where the folder should be');
    const reported: unknown[] = [];
    const log = new AuditLog(path.join(blocker, 'audit'), 's', { onError: (err) => reported.push(err) });
    expect(() => {
      log.write('session_start');
      log.write('session_end');
    }).not.toThrow();
    expect(reported).toHaveLength(1);
  });

  test('each line is on disk as soon as write returns (a crash loses nothing written)', () => {
    const log = new AuditLog(dir, 'crash');
    log.write('session_start');
    log.write('tool_result', { result: 'partial' });
    // No close, no flush: what was written is on disk already.
    expect(lines(log.file).map((r) => r.event)).toEqual(['session_start', 'tool_result']);
  });

  test('the event list and the default folder', () => {
    // Each event once, grants and their revocations among them (docs/SECURITY.md#6-the-user-sees-what-they-approve).
    expect(new Set(AUDIT_EVENTS).size).toBe(AUDIT_EVENTS.length);
    expect(AUDIT_EVENTS).toEqual(expect.arrayContaining(['permission_decision', 'permission_grant', 'permission_revoke']));
    expect(auditDir('/data')).toBe(path.join('/data', 'audit'));
    expect(auditDir('/data', '/logs/loom')).toBe('/logs/loom');
  });
});
