/**
 * The audit log: one JSON object per line, one file per session (`<dir>/<sessionId>.jsonl`,
 * private to the user), kept apart from the session store so that deleting a session never
 * deletes its record. Each line is appended synchronously, so a crash loses nothing that
 * was already written. Every string is passed through redactSecrets; strings over 4 KB are
 * stored cut, with the size and sha256 of the full text.
 *
 * Auditing must never break the agent: a failed write is reported once (onError, stderr by
 * default) and later events are still attempted.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors';
import { ensurePrivateDir } from '../paths';
import { redactSecrets } from '../security/secrets';

export const AUDIT_EVENTS = [
  'session_start',
  'config',
  'model_change',
  'agent_change',
  'user_message',
  'llm_request',
  'llm_response',
  'permission_decision',
  'permission_grant',
  'permission_revoke',
  'validation_error',
  'tool_result',
  'tool_timeout',
  'context_compacted',
  'context_uncompacted',
  'iteration_cap_hit',
  'cost_limit_hit',
  'llm_call_error',
  'session_abort',
  'session_end',
] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/** Longer strings are stored as { truncated, size, sha256 }. */
export const MAX_AUDIT_STRING = 4096;

export interface TruncatedText {
  truncated: string;
  /** Bytes (UTF-8) of the full text. */
  size: number;
  /** Of the full text as it was, before redaction, so it can be matched to the transcript. */
  sha256: string;
}

/** The audit folder: --log-dir when given, else <dataDir>/audit. */
export function auditDir(dataDir: string, logDir?: string): string {
  return logDir ? path.resolve(logDir) : path.join(dataDir, 'audit');
}

export class AuditLog {
  readonly file: string;
  private failed = false;
  private readonly onError: (err: unknown) => void;

  constructor(
    dir: string,
    readonly sessionId: string,
    opts: { onError?: (err: unknown) => void } = {},
  ) {
    this.file = path.join(dir, `${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.jsonl`);
    this.onError = opts.onError ?? ((err) => process.stderr.write(`Warning: the audit log ${this.file} cannot be written: ${errorMessage(err)}\n`));
    this.attempt(() => ensurePrivateDir(dir));
  }

  write(event: AuditEvent, data: object = {}): void {
    this.attempt(() => {
      const { ts: _ts, session: _s, event: _e, ...rest } = data as Record<string, unknown>;
      const record = { ts: new Date().toISOString(), session: this.sessionId, event, ...(prepare(rest) as object) };
      fs.appendFileSync(this.file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    });
  }

  private attempt(action: () => void): void {
    try {
      action();
    } catch (err) {
      if (this.failed) return;
      this.failed = true;
      try {
        this.onError(err);
      } catch {
        // A broken reporter must not break the agent either.
      }
    }
  }
}

/** Redacts and cuts every string, at any depth; keeps numbers, booleans and null. */
function prepare(value: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return prepareString(value);
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? String(value) : value;
  if (value instanceof Error) return prepareString(value.message);
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => prepare(v, seen));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, prepare(v, seen)]));
}

function prepareString(text: string): string | TruncatedText {
  if (text.length <= MAX_AUDIT_STRING) return redactSecrets(text);
  // Redact the whole text before cutting: a cut secret no longer matches its pattern.
  return {
    truncated: redactSecrets(text).slice(0, MAX_AUDIT_STRING),
    size: Buffer.byteLength(text),
    sha256: createHash('sha256').update(text).digest('hex'),
  };
}
