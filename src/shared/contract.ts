/**
 * The one bridge contract between the UI and the engine. Every request method is named
 * here with the zod schema its input must pass and the type of its answer; the pushed
 * events are the engine's EngineEvent stream. The Electron adapter (ipcMain + preload)
 * and the browser adapter (HTTP + SSE server and its fetch client) are both driven by this
 * table, so they cannot drift: a method missing here exists nowhere.
 *
 * The renderer is untrusted: inputs are validated on the engine side with these schemas.
 */
import { z } from 'zod';
import { APPROVAL_ANSWERS, type SessionGrant } from './approvals';
import { IMAGE_TYPE_NAMES, IMAGE_TYPES, MAX_ATTACHMENT_NAME, MAX_ATTACHMENTS, MAX_IMAGE_DATA_URL_CHARS, MAX_TEXT_FILE_CHARS } from './attachments';
import type { EngineEvent, PendingRequest, TranscriptSeq, TurnResult } from './engine-events';
import { EXPORT_FORMATS } from './export-name';
import { IMPORT_SOURCES, MAX_IMPORT_PATH, type ImportReport, type ImportSourceInfo } from './import-sources';
import type { McpOverview } from './mcp';
import { ENV_VAR_NAME, MAX_TRASH_DAYS, PERMISSION_MODES, THEMES, type Settings } from './settings';
import { SEARCH_SCOPES, type SessionSearchHit, type ShareResult, type SyncStatus, type SyncStatusEvent } from './sync';
import type {
  BranchPoint,
  ChatMessage,
  ChildLink,
  Compaction,
  CompactionDetail,
  ConnectionReport,
  MessageFacts,
  ModelChange,
  AgentChange,
  Pin,
  SessionFamily,
  SessionMeta,
  SessionPage,
  SessionUsage,
  SubagentRun,
  TrashedSession,
} from './types';

export type { PendingRequest, TranscriptSeq } from './engine-events';
export type { McpOverview, McpServerStatus } from './mcp';
export type { BranchPoint, ConnectionReport } from './types';
export type { Settings } from './settings';

export { EXPORT_FORMATS, type ExportFormat } from './export-name';
export { IMPORT_SOURCE_LABELS, IMPORT_SOURCES, MAX_IMPORT_PATH, type ImportReport, type ImportSourceInfo, type ImportSourceName } from './import-sources';
export type { SearchScope, SessionSearchHit, SyncStatus } from './sync';

/** Most sessions (or search hits) one page of the sidebar may carry. */
const MAX_LIST_PAGE = 500;
const DEFAULT_LIST_PAGE = 100;
/** Most messages a single transcript page may carry. */
const MAX_TRANSCRIPT_PAGE = 1000;
/** Body cap for ordinary requests; import carries a whole export and gets more room. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const IMPORT_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** chat.send with every attachment at its cap (JSON may escape a text file's characters up to 6 bytes each). */
const SEND_MAX_BODY_BYTES = DEFAULT_MAX_BODY_BYTES + MAX_ATTACHMENTS * Math.max(MAX_IMAGE_DATA_URL_CHARS, 6 * MAX_TEXT_FILE_CHARS);

export interface AppInfo {
  name: 'Loom';
  version: string;
  /** 'desktop' inside Electron, 'browser' when served on 127.0.0.1. */
  shell: 'desktop' | 'browser';
  electronVersion: string | null;
  dataDir: string;
  /** The folder `--project` named at start (new sessions' first choice), or null: the window asks. */
  startProject: string | null;
  platform: string;
  /**
   * Names (never values) of secret-looking environment variables of the engine's process
   * that tools do not get (not passed by the user); the window says so once at start.
   */
  secretEnvNames: string[];
}

/** What sessions.import made of a file. */
export interface ImportedFile {
  meta: SessionMeta;
  /** Its sub-agent sessions whose run_subagent call its transcript lacks: imported as sessions of their own (by id). */
  unlinked: string[];
}

export interface SessionInfo extends SessionMeta {
  compactions: Compaction[];
  usage: SessionUsage;
  /** Each change of the session's model, oldest first. */
  model_changes: ModelChange[];
  /** Each change of the session's agent, oldest first. */
  agent_changes: AgentChange[];
  /** A sub-agent's link to its parent and its state; null for a session no run_subagent call started. */
  child: ChildLink | null;
}

/** An agent the session may choose (docs/DESIGN.md#agents), as the agent picker lists it. */
export interface AgentSummary {
  name: string;
  description: string;
  /** Where it was defined: the project, the data folder, or built in. */
  scope: 'project' | 'data' | 'built-in';
  /** The file, relative to the project for a project's; absent for a built-in. */
  file?: string;
  readOnly: boolean;
}

/** The agents of a session's folder, and one line for each agent file that could not be used. */
export interface AgentList {
  agents: AgentSummary[];
  problems: string[];
}

export interface TranscriptPage {
  /** Messages in the whole transcript. */
  total: number;
  offset: number;
  messages: ChatMessage[];
  /** Aligned with `messages`: each one's facts, null where none were recorded. */
  facts: (MessageFacts | null)[];
}

export interface FindResult {
  /** Transcript positions of the matching messages, first to last. */
  matches: TranscriptSeq[];
}

/** The model server's models, sorted by name. */
export interface ModelList {
  models: string[];
}

export interface ContextState {
  contextTokens: number;
  maxContextTokens: number;
  /** True while a turn of this session is running in this process. */
  busy: boolean;
  /** The reply streaming in now, as far as it came ('' when none). */
  replyInFlight: string;
  /** The project instructions file the system prompt carries (AGENTS.md or CLAUDE.md), while the session is open here. */
  instructions: { file: string; bytes: number; truncated: boolean } | null;
  /** The model's context window, when known, and where it was learnt. */
  modelWindow: { tokens: number; source: 'server' | 'setting' | 'refusal' } | null;
}

/** A session's project folder as the chat header shows it (docs/DESIGN.md#the-project-folder). */
export interface SessionProject {
  /** The folder chosen for it; null while none is. */
  dir: string | null;
  /** The folder it was recorded in (an import's), shown when none is chosen. */
  recorded: string | null;
  /** 'missing': the folder was deleted or moved; no tool runs until another is chosen. */
  state: 'ready' | 'missing' | 'none';
  /** Until the first message (or while missing or not chosen) another folder may be chosen. */
  changeable: boolean;
}

/** A folder the user chose before, most recent first; `exists` false when it is gone. */
export interface RecentFolder {
  path: string;
  exists: boolean;
}

/** A project folder of the sessions and how many sessions it has (the sidebar's filter). */
export interface ProjectCount {
  path: string;
  sessions: number;
}

/** Files a session's tools wrote or edited, relative to its project folder, sorted. */
export interface ChangedFiles {
  files: string[];
}

/** The files a revert put back as they were before the session (relative, sorted). */
export interface RevertedFiles {
  reverted: string[];
  /** Files it refused to touch (a link or a FIFO is there now, say), each with the reason. */
  leftAlone: { path: string; reason: string }[];
}

/** A single-use link to a session's export (browser mode: what a DownloadURL drag hands out). */
export interface DownloadTicket {
  /** A path on the Loom server, `/download/<ticket>`: no access token in it, good for one fetch within a minute. */
  path: string;
  filename: string;
  mimeType: string;
}

export interface ExportFile {
  /** `<title or id>.json` (or .md / .html), safe as a file name on every platform. */
  filename: string;
  mimeType: string;
  text: string;
}

interface MethodSpec<I extends z.ZodType, O> {
  input: I;
  maxBodyBytes: number;
  /** Type-level only: the answer's type. */
  readonly output?: O;
}

/** `method<Output>()(inputSchema)`: curried so the output type is written, the input inferred. */
function method<O>() {
  return <I extends z.ZodType>(input: I, maxBodyBytes = DEFAULT_MAX_BODY_BYTES): MethodSpec<I, O> => ({
    input,
    maxBodyBytes,
  });
}

const sessionId = z.string().trim().min(1, 'A session id is required.').max(128, 'The session id is too long.');
const requestId = z.string().min(1, 'A request id is required.').max(128, 'The request id is too long.');
const none = z.strictObject({});
const bySession = z.strictObject({ id: sessionId });
const includeArchived = z.boolean().optional();
/** A transcript position (engine-events.ts TranscriptSeq: 0 is the system prompt); bounded like the store's counts. */
const transcriptSeq = z.int().min(0).max(100_000_000);
const agentName = z.string().trim().min(1, 'An agent name is required.').max(64, 'An agent name can have at most 64 characters.');
const modelName = z.string().trim().min(1, 'A model name is required.').max(200, 'A model name can have at most 200 characters.');
const baseUrl = z.url({ protocol: /^https?$/, error: 'The base URL must be an http(s) URL.' }).max(2000);
/**
 * A server to ask about its models: the dialog's URL (default: the one in use) and the key
 * typed for it (none given: the stored key, only when it belongs to that URL; '': no key).
 */
const modelServer = { baseUrl: baseUrl.optional(), apiKey: z.string().max(4000).optional() };
const hubUrl = z
  .string()
  .trim()
  .max(2000, 'The hub URL is too long.')
  .refine((url) => url === '' || /^postgres(ql)?:\/\//i.test(url), 'The hub URL is a PostgreSQL URL: postgres://user@host/database.');
const mcpServerName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'A server name is letters, digits, _ . and -, at most 64 of them.');
/** A new value, or null: keep the one saved under that name (the dialog never sees it). */
const newOrSaved = z.string().max(100_000).nullable();
const mcpFlags = {
  readOnly: z.boolean(),
  readOnlyTools: z.array(z.string().trim().min(1).max(200)).max(1000),
  disabled: z.boolean(),
};
const mcpServerEdit = z.discriminatedUnion('transport', [
  z.strictObject({
    transport: z.literal('stdio'),
    command: z.string().trim().min(1, 'Type the command that starts the server.').max(4096),
    args: z.array(z.string().max(100_000)).max(1000),
    env: z
      .record(z.string(), newOrSaved)
      .refine(
        (env) => Object.keys(env).every((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)),
        'An environment variable name is letters, digits and _, not starting with a digit.',
      ),
    sandbox: z.boolean(),
    ...mcpFlags,
  }),
  z.strictObject({
    transport: z.literal('http'),
    url: z.url({ protocol: /^https?$/, error: "The server's URL is an http or https URL." }),
    headers: z
      .record(z.string(), newOrSaved)
      .refine(
        (headers) => Object.keys(headers).every((name) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,1000}$/.test(name)),
        'A header name is one word of letters, digits and - (no spaces or colons).',
      ),
    ...mcpFlags,
  }),
]);
const teamName = z
  .string()
  .trim()
  .min(1, 'Type a team name.')
  .regex(/^[\w.-]{1,64}$/, 'A team name is letters, digits, . _ and -, at most 64 of them.');
const attachmentName = z.string().trim().min(1, 'An attached file needs a name.').max(MAX_ATTACHMENT_NAME, 'The file name is too long.');
const attachment = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('text'), name: attachmentName, text: z.string().max(MAX_TEXT_FILE_CHARS, 'The attached text file is too long.') }),
  z.strictObject({
    kind: z.literal('image'),
    name: attachmentName,
    dataUrl: z
      .string()
      .max(MAX_IMAGE_DATA_URL_CHARS, 'The attached image is too large.')
      .refine((url) => IMAGE_TYPES.some((type) => url.startsWith(`data:${type};base64,`)), `Images are attached as ${IMAGE_TYPE_NAMES} data URLs.`),
  }),
]);
/** Names one window's import in its progress events. */
const importId = z.string().min(1, 'An import id is required.').max(128, 'The import id is too long.');
/** A path the user typed: read-only by the importer, kept out of logs; no control characters (a NUL would cut it short). */
const importPath = z
  .string()
  .trim()
  .min(1, 'Give a path, or leave the field empty for the default location.')
  .max(MAX_IMPORT_PATH, `A path can have at most ${MAX_IMPORT_PATH} characters.`)
  .refine((typed) => !/[\u0000-\u001f\u007f]/.test(typed), 'A path cannot contain control characters.');
/** A folder's path as the user typed or picked it: absolute (or under ~/), no control characters; the backend checks the folder. */
const projectPath = z
  .string()
  .trim()
  .min(1, "Type the project folder's path.")
  .max(MAX_IMPORT_PATH, `A path can have at most ${MAX_IMPORT_PATH} characters.`)
  .refine((typed) => !/[\u0000-\u001f\u007f]/.test(typed), 'A path cannot contain control characters.')
  .refine((typed) => /^(\/|~\/|~$|[A-Za-z]:[\\/]|\\\\)/.test(typed), "Give the folder's full path (or one starting with ~/).");
const messageText = z
  .string()
  .max(200_000, 'The message is too long.')
  .refine((t) => t.trim().length > 0, 'Type a message first.');

export const contract = {
  'app.info': method<AppInfo>()(none),

  /** A page of the list, newest updated first; `after`: the `next` of the page before (docs/DESIGN.md#sidebar-paging). */
  'sessions.list': method<SessionPage>()(
    z.strictObject({
      includeArchived,
      limit: z.int().min(1).max(MAX_LIST_PAGE).default(DEFAULT_LIST_PAGE),
      after: z.strictObject({ updated_at: z.string().min(1).max(64), id: sessionId }).optional(),
      /** Only the sessions of this project folder (the sidebar's filter). */
      project: projectPath.optional(),
    }),
  ),
  /** Ranked hits from `offset` on: a page shorter than `limit` is the last. Scope 'team': the hub's full-text search (sessions shared with my teams, and mine). */
  'sessions.search': method<SessionSearchHit[]>()(
    z.strictObject({
      query: z.string().trim().min(1, 'Type something to search for.').max(500, 'The search is too long.'),
      scope: z.enum(SEARCH_SCOPES).optional(),
      includeArchived,
      limit: z.int().min(1).max(MAX_LIST_PAGE).optional(),
      offset: z.int().min(0).max(10_000_000).optional(),
      project: projectPath.optional(),
    }),
  ),
  /** Find in session: the transcript positions of the messages holding every term (a "quoted phrase" as one), in order. */
  'sessions.find': method<FindResult>()(
    z.strictObject({ id: sessionId, query: z.string().trim().min(1, 'Type something to find.').max(500, 'The search is too long.') }),
  ),
  /** The project folders of the sessions, with their counts: what the sidebar's filter lists. */
  'sessions.projects': method<ProjectCount[]>()(none),
  /** The session's project folder, whether it is there and whether it may still change (the chat header). */
  'sessions.project': method<SessionProject>()(bySession),
  /** Another project folder for the session: before its first message, or when its folder is gone or was never chosen. */
  'sessions.setProject': method<SessionMeta>()(z.strictObject({ id: sessionId, projectDir: projectPath })),
  'sessions.info': method<SessionInfo>()(bySession),
  'sessions.transcript': method<TranscriptPage>()(
    z.strictObject({
      id: sessionId,
      offset: z.int().min(0),
      limit: z.int().min(1).max(MAX_TRANSCRIPT_PAGE),
    }),
  ),
  'sessions.rename': method<SessionMeta>()(
    z.strictObject({
      id: sessionId,
      title: z.string().trim().min(1, 'A title cannot be empty.').max(200, 'A title can have at most 200 characters.'),
    }),
  ),
  /** `at`: share only the first `at` transcript messages ("Fork from here"); default all. */
  'sessions.fork': method<SessionMeta>()(z.strictObject({ id: sessionId, at: z.int().min(1).max(100_000_000).optional() })),
  /** Where the session's transcript has sibling branches (the "2 / 3" switchers). */
  'sessions.branches': method<BranchPoint[]>()(bySession),
  /** The session's parent, siblings and forks. */
  'sessions.family': method<SessionFamily>()(bySession),
  /** The session's sub-agents, in the order they started: each one's link, tools used, usage and times (docs/DESIGN.md#sub-agents). */
  'sessions.children': method<SubagentRun[]>()(bySession),
  'sessions.archive': method<SessionMeta>()(bySession),
  'sessions.unarchive': method<SessionMeta>()(bySession),
  'sessions.export': method<ExportFile>()(z.strictObject({ id: sessionId, format: z.enum(EXPORT_FORMATS).optional() })),
  'sessions.import': method<ImportedFile>()(
    z.strictObject({ text: z.string().min(1, 'The file is empty.').max(IMPORT_MAX_BODY_BYTES) }),
    IMPORT_MAX_BODY_BYTES + 1024,
  ),
  /** The agents "Import from…" reads, with their default locations (docs/DESIGN.md#importing-from-other-agents). */
  'sessions.importSources': method<ImportSourceInfo[]>()(none),
  /**
   * Imports another agent's sessions from `path` (default: the source's location); progress
   * arrives as `import_progress` events naming `importId`; answers with the summary.
   */
  'sessions.importFrom': method<ImportReport>()(z.strictObject({ importId, source: z.enum(IMPORT_SOURCES), path: importPath.optional() })),
  /** Moves the session to the Trash (docs/DESIGN.md#trash); `sessions.restore` brings it back. */
  'sessions.delete': method<{ deleted: string }>()(bySession),
  /** Keeps the session on top of the sidebar (this device's); unpin lets it go back among the others. */
  'sessions.pin': method<SessionMeta>()(bySession),
  'sessions.unpin': method<SessionMeta>()(bySession),
  /** Deletes a session nothing was said in yet (its tab closed, or left by a reload); false once it has a message or a title. */
  'sessions.discard': method<{ discarded: boolean }>()(bySession),
  /** The Trash, most recently deleted first, with when each session is purged. */
  'sessions.trash': method<TrashedSession[]>()(none),
  'sessions.restore': method<SessionMeta>()(bySession),
  /** Deletes a session in the Trash for good. */
  'sessions.purge': method<{ purged: string }>()(bySession),
  /** Shares the session with a team on the sync hub (docs/DESIGN.md#sync-through-a-hub): queued, then synced. */
  'sessions.share': method<ShareResult>()(z.strictObject({ id: sessionId, team: teamName })),
  /** The session's model from its next turn on; recorded (sessions.info's model_changes). */
  /** `window`: the model's context window in tokens, for every session of it on this server; null: learnt again. */
  'sessions.setModel': method<SessionMeta>()(
    z.strictObject({
      id: sessionId,
      model: modelName,
      window: z.int().min(1000, 'A model window is at least 1000 tokens.').max(100_000_000).nullable().optional(),
    }),
  ),
  /** The session's agent from its next turn on; recorded (sessions.info's agent_changes). An unknown name is refused. */
  'sessions.setAgent': method<SessionMeta>()(z.strictObject({ id: sessionId, agent: agentName })),
  /** The agents the session may choose, in its folder. */
  'agents.list': method<AgentList>()(bySession),
  /** Desktop only: drags the JSON export out of the window as a file. */
  'sessions.startDrag': method<{ started: boolean }>()(bySession),
  /** Browser mode only: a single-use, short-lived link to the export, for a DownloadURL drag. */
  'sessions.downloadTicket': method<DownloadTicket>()(z.strictObject({ id: sessionId, format: z.enum(EXPORT_FORMATS).optional() })),

  /** A new session in `projectDir`, else in the most recent folder still there; with none, the error `no_project` (the window asks). */
  'chat.create': method<SessionMeta>()(z.strictObject({ projectDir: projectPath.optional() })),
  /** Runs one user turn; answers when the turn has ended (events stream meanwhile). Attachments: docs/DESIGN.md#attachments. */
  'chat.send': method<TurnResult>()(
    z
      .strictObject({
        sessionId,
        text: z.string().max(200_000, 'The message is too long.'),
        attachments: z.array(attachment).max(MAX_ATTACHMENTS, `A message can carry at most ${MAX_ATTACHMENTS} files.`).optional(),
      })
      .refine((input) => input.text.trim().length > 0 || (input.attachments?.length ?? 0) > 0, { message: 'Type a message first.', path: ['text'] }),
    SEND_MAX_BODY_BYTES,
  ),
  /** A new branch with the user message at `index` replaced by `text`; chat.reply then answers it. */
  'chat.edit': method<SessionMeta>()(z.strictObject({ sessionId, index: transcriptSeq, text: messageText })),
  /** A sibling branch for the reply at `index`, ending with the user message it answers; chat.reply then answers it. */
  'chat.regenerate': method<SessionMeta>()(z.strictObject({ sessionId, index: transcriptSeq })),
  /** Runs a turn answering the user message the context ends with; answers when the turn has ended. */
  'chat.reply': method<TurnResult>()(z.strictObject({ sessionId })),
  'chat.stop': method<{ stopped: boolean }>()(z.strictObject({ sessionId })),
  /** Compact now; `focus`: what the summary should keep above all; `upTo`: summarise only up to that transcript message. */
  'chat.compact': method<{ before_tokens: number; after_tokens: number }>()(
    z.strictObject({
      sessionId,
      focus: z.string().max(2_000, 'The focus is too long.').optional(),
      upTo: transcriptSeq.optional(),
    }),
  ),
  /** Undoes the last compaction: the context before it comes back; the record stays, marked undone. */
  'chat.uncompact': method<{ contextTokens: number }>()(z.strictObject({ sessionId })),
  /** Each compaction with the range it summarised, its requests, what it carried, whether it was undone. */
  'sessions.compactions': method<CompactionDetail[]>()(bySession),
  'sessions.pins': method<Pin[]>()(bySession),
  /** Pins transcript message `seq`, or a note. */
  'chat.pin': method<Pin>()(
    z
      .strictObject({
        sessionId,
        seq: transcriptSeq.optional(),
        note: z.string().trim().min(1, 'A pinned note needs some text.').max(4_000, 'A pinned note can have at most 4,000 characters.').optional(),
      })
      .refine((input) => (input.seq === undefined) !== (input.note === undefined), 'Pin a message (seq) or a note, one of the two.'),
  ),
  'chat.unpin': method<{ ok: true }>()(z.strictObject({ sessionId, pinId: z.int().min(1) })),
  /** 'session' allows this call and grants what the approval offered for the rest of the session. */
  'chat.approve': method<{ ok: true }>()(z.strictObject({ requestId, answer: z.enum(APPROVAL_ANSWERS) })),
  'chat.answer': method<{ ok: true }>()(z.strictObject({ requestId, answer: z.string().max(20_000, 'The answer is too long.').nullable() })),
  'chat.context': method<ContextState>()(z.strictObject({ sessionId })),
  /** The approvals and questions the session waits on: a reloaded window shows them again. */
  'chat.pending': method<PendingRequest[]>()(z.strictObject({ sessionId })),
  /** The session's "allow for this session" grants (kept while it is open in this process). */
  'chat.grants': method<SessionGrant[]>()(z.strictObject({ sessionId })),
  /** Takes a grant back; answers with the grants left. */
  'chat.revokeGrant': method<SessionGrant[]>()(z.strictObject({ sessionId, grantId: z.string().min(1).max(100) })),
  /** Files changed by the session's tools since it was opened in this process. */
  'chat.changes': method<ChangedFiles>()(z.strictObject({ sessionId })),
  /** Puts every changed file back as it was (created files removed); refused during a turn. */
  'chat.revert': method<RevertedFiles>()(z.strictObject({ sessionId })),

  /** The server's models (GET /models), time-bounded; an error says what is wrong. */
  'models.list': method<ModelList>()(z.strictObject(modelServer)),
  /** The connection test: lists the models and checks the model is among them; a failure is an answer, not an error. */
  'models.test': method<ConnectionReport>()(z.strictObject({ ...modelServer, model: modelName })),

  /** The folders chosen before, most recent first, each marked when it is gone. */
  'projects.recent': method<RecentFolder[]>()(none),
  /** Desktop only: the operating system's folder picker; null when the user cancelled it. */
  'projects.pick': method<{ path: string | null }>()(none),

  /** The background sync's status line (also pushed as sync_status events). */
  'sync.status': method<SyncStatus>()(none),
  /** Syncs with the hub now; answers with the status after it (a failure is a status, not an error). */
  'sync.now': method<SyncStatus>()(none),

  'settings.get': method<Settings>()(none),
  /** The MCP servers of mcp.json and how each is doing (docs/DESIGN.md#mcp-servers). */
  'settings.mcpServers': method<McpOverview>()(none),
  /** Adds or replaces (`previous`: renames) a server's entry in mcp.json and applies the file; answers with the servers then. */
  'settings.mcpSave': method<McpOverview>()(z.strictObject({ name: mcpServerName, previous: mcpServerName.optional(), server: mcpServerEdit })),
  'settings.mcpRemove': method<McpOverview>()(z.strictObject({ name: mcpServerName })),
  /** Stops a server and starts it again. */
  'settings.mcpRestart': method<McpOverview>()(z.strictObject({ name: mcpServerName })),
  'settings.set': method<Settings>()(
    z.strictObject({
      baseUrl: baseUrl.optional(),
      model: modelName.optional(),
      /** An empty string removes the stored key. */
      apiKey: z.string().max(4000).optional(),
      maxContextTokens: z.int().min(1000, 'Use at least 1000 context tokens.').max(10_000_000).optional(),
      /** null: learn the window from the server or a refusal. */
      modelWindow: z.int().min(1000, 'A model window is at least 1000 tokens.').max(100_000_000).nullable().optional(),
      mode: z.enum(PERMISSION_MODES).optional(),
      theme: z.enum(THEMES).optional(),
      openTabs: z.array(sessionId).max(100, 'At most 100 tabs can be open.').optional(),
      activeTab: sessionId.nullable().optional(),
      passEnv: z
        .array(z.string().regex(ENV_VAR_NAME, 'Environment variable names are letters, digits and _, not starting with a digit.'))
        .max(100, 'At most 100 environment variables can be passed to tools.')
        .optional(),
      /** '' turns sync off; `***` as the password keeps the saved one. */
      hubUrl: hubUrl.optional(),
      trashDays: z
        .int('Keep deleted sessions a whole number of days.')
        .min(1, 'Keep deleted sessions at least 1 day.')
        .max(MAX_TRASH_DAYS, `Keep deleted sessions at most ${MAX_TRASH_DAYS} days.`)
        .optional(),
    }),
  ),
} as const;

export type Contract = typeof contract;
export type MethodName = keyof Contract;
export const METHOD_NAMES = Object.keys(contract) as MethodName[];
export type MethodInput<M extends MethodName> = z.input<Contract[M]['input']>;
export type ParsedInput<M extends MethodName> = z.output<Contract[M]['input']>;
export type MethodOutput<M extends MethodName> = NonNullable<Contract[M]['output']>;

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.hasOwn(contract, name);
}

/**
 * Pushed by the desktop app itself: a session file opened from the operating system was
 * imported, and the window shows it in a tab.
 */
export interface OpenSessionEvent {
  type: 'open_session';
  sessionId: string;
}

/** The events pushed to every window: the engine's stream, unchanged, the desktop app's own, and the sync's status. */
export type BridgeEvent = EngineEvent | OpenSessionEvent | SyncStatusEvent;

/** Every answer crosses the bridge in this envelope, so errors keep their one-line message. */
export type BridgeResult<T = unknown> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

/**
 * What the renderer sees, whichever transport carries it: `window.loom` in Electron,
 * the HTTP client in the browser. Both are built from the contract above.
 */
export interface LoomBridge {
  invoke<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>>;
  onEvent(listener: (event: BridgeEvent) => void): () => void;
  /** Called when the event stream is back after a drop: events may have been missed meanwhile. */
  onReconnect(listener: () => void): () => void;
  /**
   * Called once when the server refuses this page for good (the browser mode restarted with
   * a new access token): the event stream stops retrying, and `reason` says what to do.
   */
  onAccessLost(listener: (reason: string) => void): () => void;
}

/**
 * What the Electron preload exposes as `window.loom`: the same methods, answering the
 * BridgeResult envelope (thrown errors would lose their code crossing contextBridge).
 */
export interface ElectronAPI {
  invoke<M extends MethodName>(method: M, input: MethodInput<M>): Promise<BridgeResult<MethodOutput<M>>>;
  onEvent(listener: (event: BridgeEvent) => void): () => void;
}

/** The engine-side implementation of every method, given already-validated input. */
export type Handlers = {
  [M in MethodName]: (input: ParsedInput<M>) => Promise<MethodOutput<M>> | MethodOutput<M>;
};
