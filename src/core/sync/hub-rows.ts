import { createHash } from 'node:crypto';
import type { ChildState } from '../../shared/types';
import { isImageDataUrl } from '../security/image-data';
import { redactSecrets } from '../security/secrets';

/**
 * The shapes that travel between a device and the hub (docs/DESIGN.md#sync-through-a-hub).
 * Every text goes through redactSecrets before it leaves the device, then is hashed in its
 * canonical JSON form, so equal messages share one body on the hub.
 */

/** A transcript message as the hub stores it (the messages table's columns, redacted). */
export interface HubBody {
  role: string;
  content: string | null;
  tool_calls: string | null;
  tool_call_id: string | null;
  tool_text: string | null;
  images: string | null;
  facts: string | null;
  stopped: number;
}

/** What moves as a session's one "state" field (last writer wins as a whole). */
export interface SessionState {
  parent_id: string | null;
  summary: string | null;
  status: string;
  created_at: string;
  updated_at: string;
  model: string | null;
  cwd: string | null;
  plan: string;
  fork_parent_id: string | null;
  fork_at: number;
  note: string | null;
  /** The session's agent (null: the default); a state an older Loom pushed has none of these five. */
  agent: string | null;
  /** A sub-agent's link (store/children.ts): all four null for a session no run_subagent call started. */
  spawned_by: string | null;
  spawn_call_id: string | null;
  spawn_agent: string | null;
  child_state: ChildState | null;
  usage: UsageRow[];
}

export interface UsageRow {
  kind: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

export interface HubSession {
  id: string;
  title: string | null;
  title_hlc: number;
  archived: boolean;
  archived_hlc: number;
  state: SessionState;
  state_hlc: number;
}

export interface HubEntry {
  session_id: string;
  seq: number;
  body_hash: string;
  device_seq: number;
}

export type RecordKind = 'compaction' | 'context_start' | 'model_change' | 'agent_change';

export interface HubRecord {
  session_id: string;
  device_seq: number;
  kind: RecordKind;
  /** The record's columns but its ids (the session is session_id). */
  body: Record<string, unknown>;
}

/**
 * Image data URLs are bytes, not text a secret could hide in readably: left as they are.
 * Only a whole base64 data URL of an allowed type counts (the check exports use): a text
 * that merely starts like one is text, redacted like any other.
 */
function redactText(text: string): string {
  return isImageDataUrl(text) ? text : redactSecrets(text);
}

/** Every string in a JSON value redacted. */
export function redactDeep<T>(value: T): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (Array.isArray(value)) return value.map(redactDeep) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v)])) as T;
  return value;
}

/** JSON with object keys sorted: the same value always gives the same text, and the same hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function bodyHash(body: HubBody): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
