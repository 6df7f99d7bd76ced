/**
 * LoomEngine: the one face the front ends (REPL, Electron main, browser server) see. It
 * opens sessions, runs user turns (each under the session's lease) through the agent loop, turns
 * the agent's questions into events answered later (answerApproval / answerQuestion), and
 * stops, compacts, forks and closes. No session logic lives in any UI: it is all here.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { ApprovalAnswer, SessionGrant } from '../shared/approvals';
import type { Attachment } from '../shared/attachments';
import type { EngineEvent, PendingRequest, RequestOrigin, TurnResult } from '../shared/engine-events';
import type { ContextState, SessionProject } from '../shared/contract';
import { IMPORT_SOURCES, IMPORT_SOURCE_LABELS, type ImportSourceName } from '../shared/import-sources';
import { mcpProblems, type McpOverview, type McpServerEdit } from '../shared/mcp';
import type { BranchPoint, ChatMessage, ChildState, CompactionDetail, Pin, SessionFamily, SessionMeta } from '../shared/types';
import { AgentSession } from './agent/session';
import { DEFAULT_AGENT } from './agents/built-in';
import type { AgentDefinition } from './agents/definition';
import { findAgent, loadAgents, type AgentRegistry } from './agents/registry';
import { auditDir } from './audit/audit-log';
import type { AgentHost } from './agent/host';
import { runReplyTurn, runUserTurn } from './agent/loop';
import { buildUserMessage, editedUserMessage } from './agent/user-message';
import { recoverInterruptedCalls } from './agent/recovery';
import { compactNow } from './agent/context-guard';
import { readProjectInstructions, type ProjectInstructions } from './agent/project-instructions';
import { buildSystemPrompt } from './agent/system-prompt';
import { RUN_SUBAGENT, taskLabel } from '../shared/subagents';
import { childHost, type OpenChild, type SubagentHost } from './agent/subagent';
import { DEFAULTS, type LoomConfig } from './config';
import { estimateTotal } from './context/budget';
import { upToCut } from './context/compactor';
import { LoomError } from './errors';
import { importFiles, runImport, typedLocation, type ImportRequest, type ImportSummary } from './import/run';
import { defaultMcpConfigFile, loadMcpConfig } from './mcp/mcp-config';
import { removeMcpServer, saveMcpServer } from './mcp/mcp-config-file';
import type { McpServers } from './mcp/mcp-servers';
import { ModelWindows } from './model/window-store';
import { MemoryStore } from './memory/memory-store';
import { ModelClient } from './model/client';
import { loadPriceTable, PRICES_FILE, type PriceTable } from './model/pricing';
import { folderExists, projectFolder } from './security/project-folder';
import { withheldSecretEnvNames } from './security/tool-env';
import { FileSnapshots, type RevertReport } from './security/snapshots';
import { SessionLifecycle, type ListenerErrorReporter } from './session-lifecycle';
import { ensurePrivateDir } from './paths';
import { ChangeWatcher } from './store/change-watcher';
import { ImportRecords } from './store/repositories/import-records';
import type { ImportedSession, SessionStore } from './store/session-store';
import { parseExport } from './store/export-schema';
import { ALL_TOOLS, type Tool } from './tools/index';

/**
 * A session's folder may be changed while its transcript holds only system prompts (one per
 * folder tried); past this many messages it is taken to have begun, without reading them.
 */
const MAX_PROMPTS_BEFORE_START = 16;

/** How often windows hear of other processes' changes: well within a second, one pragma per poll when nothing changed. */
const WATCH_INTERVAL_MS = 300;

interface OpenSession {
  agent: AgentSession;
}

/** An approval resolves to an ApprovalAnswer ('once', 'session', 'deny'), a question to its answer text (null: none). */
type Answer = string | null;

interface PendingAnswer {
  sessionId: string;
  request: PendingRequest;
  settle(value: Answer): void;
  /** What the request resolves to when nobody answers (stop, close). */
  fallback: Answer;
}

export class LoomEngine extends SessionLifecycle {
  private config: LoomConfig;
  private readonly memory: MemoryStore;
  private readonly windows: ModelWindows;
  private readonly imports: ImportRecords;
  /**
   * The lease owner: the caller's label plus host and pid, so that two processes never
   * share an owner (a shared owner would let both write the same session).
   */
  private readonly owner: string;
  /** Loom's own tools, as --tools limits them. */
  private readonly ownTools: Tool[];
  /** Loom's own tools, then the MCP servers' once they have started. */
  private tools: Tool[];
  private mcp: McpServers | null = null;
  /** Loom's version as the MCP servers are told it; set when they are first started. */
  private mcpClientVersion = '';
  /** A configuration file that could not be used, when no server was started. */
  private mcpConfigProblem: string | null = null;
  private mcpStart: Promise<void> | null = null;
  /** close() without a session: the engine is done, and MCP servers that finish starting later are closed at once. */
  private closedAll = false;
  private mcpClosing: Promise<void> = Promise.resolve();
  /** The default prices plus <data dir>/prices.json, read once. */
  private readonly prices: PriceTable;
  private readonly sessions = new Map<string, OpenSession>();
  private readonly pending = new Map<string, PendingAnswer>();
  /**
   * Each session works in the project folder chosen for it (docs/DESIGN.md#the-project-folder).
   * This one, the folder the user named for this run (`loom`'s --project or working folder,
   * the app's --project), is for a session that has none chosen: new, or imported (the folder
   * an import records is information only, so an edited export cannot pick one). Without it,
   * such a session waits for the user to choose (setProject).
   */
  private readonly projectDir: string | undefined;

  constructor(opts: { config: LoomConfig; store: SessionStore; projectDir?: string; owner?: string; onListenerError?: ListenerErrorReporter }) {
    super({ store: opts.store, trashDays: opts.config.trashDays, onListenerError: opts.onListenerError });
    this.projectDir = opts.projectDir;
    this.config = opts.config;
    this.owner = `${opts.owner ?? 'loom'}@${os.hostname()}:${process.pid}`;
    this.ownTools = selectTools(opts.config.tools);
    this.tools = this.ownTools;
    this.prices = loadPriceTable(path.join(opts.store.dataDir, PRICES_FILE));
    this.memory = new MemoryStore(opts.store.db);
    this.windows = new ModelWindows(opts.store.db);
    this.imports = new ImportRecords(opts.store.db);
  }

  /**
   * Tells the listeners, every `intervalMs`, about sessions other processes changed in the
   * same data folder (ChangeWatcher); returns the function that stops watching.
   */
  watchOtherProcesses(intervalMs = WATCH_INTERVAL_MS): () => void {
    const watcher = new ChangeWatcher(this.store);
    const timer = setInterval(() => {
      if (!this.store.db.open) return clearInterval(timer);
      let changes;
      try {
        changes = watcher.poll();
      } catch {
        return; // busy or closing: the next poll catches up
      }
      for (const change of changes) {
        // An open session changed by another connection between turns (a sync): its agent reads it again.
        const agent = this.sessions.get(change.id)?.agent;
        if (change.meta && agent && !agent.busy) agent.reload();
        if (change.meta) this.emit({ type: 'session_changed', sessionId: change.id, meta: change.meta });
        else if (change.before) this.forgetDeleted(change.id, change.before);
      }
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** A session another process deleted: this engine's work in it ends (it was between turns: the deletion needed the lease free), and the windows hear it is gone. */
  private forgetDeleted(id: string, before: SessionMeta): void {
    this.close(id);
    this.emit({ type: 'session_deleted', sessionId: id, meta: before });
  }

  /** A new session in `folder` (default: the run's), opened for work; a folder that is missing or no folder is refused. */
  async createSession(folder?: string): Promise<SessionMeta> {
    const projectDir = projectFolder(folder ?? this.runFolder());
    const instructions = await this.projectInstructions(projectDir);
    // An unknown --agent is refused before a session is made.
    const agent = this.config.agent === undefined ? null : namedAgent(await this.agentsIn(projectDir), this.config.agent);
    const meta = this.store.create({ model: this.config.model, projectDir });
    if (agent && agent.name !== DEFAULT_AGENT) this.store.setAgent(meta.id, agent.name);
    this.attach(meta.id, projectDir, false, instructions, await this.agentsIn(projectDir));
    return this.changed(meta.id);
  }

  /**
   * The agents the session may choose, in the folder it works in (else the run's; with
   * neither, the data folder's and the built-ins), with a line for each file that could
   * not be used (docs/DESIGN.md#agents).
   */
  sessionAgents(idOrPrefix: string): Promise<AgentRegistry> {
    const meta = this.store.getMeta(this.store.resolveId(idOrPrefix));
    return this.agentsIn(this.sessions.get(meta.id)?.agent.projectDir ?? meta.project_dir ?? this.projectDir ?? null);
  }

  /** Read afresh each time: agent files are few and small, and the user may have just written one. */
  private agentsIn(projectDir: string | null): Promise<AgentRegistry> {
    return loadAgents({ projectDir, dataDir: this.config.dataDir, knownTools: this.tools.map((t) => t.name) });
  }

  /**
   * Makes `name` the session's agent from its next turn on (docs/DESIGN.md#the-sessions-agent),
   * recorded with when and from what; an unknown name is refused, changing nothing. Refused
   * while another process works in the session.
   */
  async setSessionAgent(idOrPrefix: string, name: string): Promise<SessionMeta> {
    const id = this.store.resolveId(idOrPrefix);
    const meta = this.store.getMeta(id);
    const open = this.sessions.get(id)?.agent;
    const agent = namedAgent(await this.sessionAgents(id), name.trim());
    const before = meta.agent ?? DEFAULT_AGENT;
    if (before === agent.name) return meta;
    this.store.whileFree(id, () => this.store.setAgent(id, agent.name));
    if (open) {
      open.audit.write('agent_change', { from: before, to: agent.name });
      open.reconfigure(this.config, this.clientFor(id, agent), agent);
    }
    return this.changed(id);
  }

  /** The project's AGENTS.md (or CLAUDE.md), unless the user turned them off (docs/DESIGN.md#project-instructions). */
  private projectInstructions(projectDir: string): Promise<ProjectInstructions | null> {
    return this.config.projectInstructions === false ? Promise.resolve(null) : readProjectInstructions(projectDir);
  }

  /** Archiving or deleting a session this engine works in ends that work first. */
  protected override endOwnWork(sessionId: string): void {
    this.close(sessionId);
  }

  /** A JSON export as a new session (store.importSession says what is checked and repaired). */
  importSession(text: string): ImportedSession {
    const imported = this.store.importSession(parseExport(text));
    this.changed(imported.meta.id);
    return imported;
  }

  /**
   * Sessions from another agent's files (import/run.ts): new ones, and what grew since the
   * last import; each session written is announced like any other change. Other work (a
   * window's requests, the progress reaching it) runs between files, while each is read.
   */
  importFrom(request: Omit<ImportRequest, 'onChanged'>): Promise<ImportSummary> {
    return runImport(this.store, { ...request, onChanged: (id) => void this.changed(id) });
  }

  /**
   * A window's "Import from…": the files at the path typed (docs/DESIGN.md#importing-from-other-agents),
   * else at the source's default location under `home`, imported with their progress
   * announced as `import_progress` events carrying the window's `importId`.
   */
  async importFromFolder(request: { importId: string; source: ImportSourceName; path?: string; home: string }): Promise<ImportSummary> {
    const { importId, source, home } = request;
    const found = await importFiles({ source, home, path: request.path === undefined ? undefined : typedLocation(request.path, home) });
    return this.importFrom({ ...found, onProgress: (done, total) => this.emit({ type: 'import_progress', importId, done, total }) });
  }

  /**
   * Opens an existing session (any unique id prefix) for work in its project folder (refused
   * while another process works in it), and recovers tool calls a killed process left without a result (asking
   * through events). A session with no folder chosen works in the run's, saying so when it
   * was recorded in another; one whose folder is gone is refused (sessionFolder).
   */
  async openSession(idOrPrefix: string): Promise<SessionMeta> {
    const id = this.store.resolveId(idOrPrefix);
    if (this.sessions.has(id)) return this.store.getMeta(id);
    const meta = this.store.getMeta(id);
    if (meta.archived) {
      throw new LoomError(`Session ${id} is archived; unarchive it with \`loom --unarchive ${id}\` to resume.`, 'archived');
    }
    const projectDir = this.sessionFolder(meta);
    const instructions = await this.projectInstructions(projectDir);
    const agents = await this.agentsIn(projectDir);
    if (this.sessions.has(id)) return this.store.getMeta(id);
    const agent = this.attach(id, projectDir, true, instructions, agents);
    if (meta.cwd !== null && meta.cwd !== projectDir) {
      this.emit({ type: 'notice', sessionId: id, level: 'info', text: `This session was recorded in ${meta.cwd}; working in ${projectDir}.` });
    }
    if (meta.agent !== null && agent.agent.name !== meta.agent) {
      this.emit({
        type: 'notice',
        sessionId: id,
        level: 'warning',
        text: `This session's agent ${meta.agent} is not defined here; working as ${agent.agent.name}.`,
      });
    }
    await recoverInterruptedCalls(agent);
    return this.changed(id);
  }

  /** Where a session's tools may work: the folder chosen for it while it exists, else the run's; else a LoomError that says what to do. */
  private sessionFolder(meta: SessionMeta): string {
    if (meta.project_dir !== null) {
      if (folderExists(meta.project_dir)) return meta.project_dir;
      throw new LoomError(
        `This session's project folder ${meta.project_dir} is gone (deleted or moved); no tool runs until another is chosen.`,
        'project_missing',
      );
    }
    if (this.projectDir === undefined) {
      const recorded = meta.cwd === null ? '' : ` (it was recorded in ${meta.cwd})`;
      throw new LoomError(`Choose a project folder for this session first${recorded}.`, 'no_project');
    }
    return projectFolder(this.projectDir);
  }

  private runFolder(): string {
    if (this.projectDir === undefined) throw new LoomError('Choose a project folder for the new session first.', 'no_project');
    return this.projectDir;
  }

  /**
   * The session's project folder as the chat header shows it: the folder chosen (or, with
   * none, the one the run would use), whether it is there, and whether it may still be
   * changed — until the first message, or while it is missing or not chosen.
   */
  sessionProject(idOrPrefix: string): SessionProject {
    const meta = this.store.getMeta(this.store.resolveId(idOrPrefix));
    const dir = meta.project_dir ?? this.sessions.get(meta.id)?.agent.projectDir ?? null;
    const state = dir === null ? 'none' : folderExists(dir) ? 'ready' : 'missing';
    return { dir, recorded: meta.cwd, state, changeable: state !== 'ready' || meta.project_dir === null || !this.hasBegun(meta) };
  }

  /**
   * Makes `folder` the session's project folder (refused, changing nothing, for a folder that
   * is missing or no folder, and for a session that has begun in a folder still there: its
   * messages were about that one; a fork inherits it). The session, open or not, works there
   * from now on, with Loom's system prompt built for it.
   */
  async setProject(idOrPrefix: string, folder: string): Promise<SessionMeta> {
    const id = this.store.resolveId(idOrPrefix);
    const projectDir = projectFolder(folder);
    const meta = this.store.getMeta(id);
    if (meta.project_dir === projectDir) return meta;
    if (!this.sessionProject(id).changeable) {
      throw new LoomError(
        `This session's project folder is ${meta.project_dir}, fixed since its first message; start a new session for another folder.`,
        'project_fixed',
      );
    }
    if (this.sessions.get(id)?.agent.busy) throw new LoomError('This session is busy; change its folder once the current turn has ended.', 'busy');
    const instructions = await this.projectInstructions(projectDir);
    const agent = sessionAgent(await this.agentsIn(projectDir), meta.agent);
    const reopen = this.sessions.has(id);
    this.store.whileFree(id, () =>
      this.store.setProject(id, { cwd: projectDir, systemPrompt: buildSystemPrompt({ projectDir, tools: this.tools, instructions, agent }) }),
    );
    // An open session's tools hold their folder: it is opened again in the new one.
    if (reopen) {
      this.close(id);
      await this.openSession(id);
    }
    return this.changed(id);
  }

  /** True once the session's transcript holds more than system prompts. */
  private hasBegun(meta: SessionMeta): boolean {
    if (meta.message_count > MAX_PROMPTS_BEFORE_START) return true;
    return this.store.getTranscript(meta.id, 0, meta.message_count).some((m) => m.role !== 'system');
  }

  isOpen(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** One user turn; events stream meanwhile. Resolves when the turn has ended. */
  async send(sessionId: string, text: string, attachments: readonly Attachment[] = []): Promise<TurnResult> {
    // A file that cannot be attached is refused before anything happens to the session.
    const message = buildUserMessage(text, attachments);
    const agent = await this.agentFor(sessionId);
    if (agent.busy) throw new LoomError('This session is still busy with the previous message; wait for it or stop it.', 'busy');
    this.refuseUnchosenModel(agent.id);
    const outcome = await runUserTurn(agent, message, text, attachments);
    this.changedIfThere(sessionId);
    return { error: outcome.error ?? null, ...(outcome.failure ? { failure: outcome.failure } : {}) };
  }

  /**
   * Resolves once the work a session does after a turn (the listing summary) has ended:
   * for a caller about to exit, which has no next message that would cancel it.
   */
  afterTurnSettled(sessionId: string): Promise<void> {
    return this.sessions.get(sessionId)?.agent.backgroundSettled() ?? Promise.resolve();
  }

  /** Cancels the request or tool in flight, whatever the session is waiting for, and the work after a turn. */
  stop(sessionId: string): boolean {
    const agent = this.sessions.get(sessionId)?.agent;
    this.settlePending(sessionId);
    agent?.cancelBackground();
    if (!agent?.busy) return false;
    agent.stop();
    return true;
  }

  /**
   * Forces a compaction (\compact [FOCUS], Compact now): `focus`, what the summary should keep
   * above all; `upTo`, a transcript index: summarise only up to that message (Compact up to
   * here). A LoomError says why nothing was compacted.
   */
  async compact(sessionId: string, opts: { focus?: string; upTo?: number } = {}): Promise<{ before_tokens: number; after_tokens: number }> {
    const agent = await this.agentFor(sessionId);
    if (agent.busy) throw new LoomError('This session is busy; compact it once the current turn has ended.', 'busy');
    this.refuseUnchosenModel(agent.id);
    const signal = agent.beginTurn();
    try {
      // After beginTurn: the context another process changed was read again.
      const upTo = opts.upTo === undefined ? undefined : this.upToCut(agent, opts.upTo);
      const outcome = await compactNow(agent, signal, { focus: opts.focus, upTo });
      if (outcome.status === 'compacted') return { before_tokens: outcome.compaction.before_tokens, after_tokens: outcome.compaction.after_tokens };
      if (outcome.status === 'failed') throw new LoomError(outcome.error, 'compaction_failed');
      throw new LoomError(outcome.notice, 'nothing_to_compact');
    } finally {
      agent.endTurn();
    }
  }

  private upToCut(agent: AgentSession, transcriptIndex: number): number {
    const index = this.store.contextIndexOf(agent.id, transcriptIndex);
    const cut = index === null ? null : upToCut(agent.messages, index);
    if (cut === null) {
      throw new LoomError(
        `Message ${transcriptIndex + 1} cannot be compacted up to: it must be in the working context, after what was already summarised, and before your latest message.`,
        'bad_compaction_point',
      );
    }
    return cut;
  }

  /**
   * Undoes the session's last compaction (\uncompact, the marker's Undo): the working context
   * before it comes back exactly; the record stays, marked undone.
   */
  async uncompact(sessionId: string): Promise<{ contextTokens: number }> {
    const agent = await this.agentFor(sessionId);
    if (agent.busy) throw new LoomError('This session is busy; undo the compaction once the current turn has ended.', 'busy');
    const context = this.store.whileFree(agent.id, () => this.store.undoCompaction(agent.id));
    agent.adoptContext(context);
    agent.budget.reset(context);
    agent.audit.write('context_uncompacted', { context_tokens: agent.budget.estimate() });
    agent.emitUsage();
    this.changed(agent.id);
    return { contextTokens: agent.budget.estimate() };
  }

  /** The session's compactions, with what each summarised, carried and took (the kept-and-dropped view). */
  compactionDetails(sessionId: string): CompactionDetail[] {
    return this.store.getCompactionDetails(this.store.resolveId(sessionId));
  }

  /** What the user pinned in the session (docs/DESIGN.md#what-compaction-carries). */
  pins(sessionId: string): Pin[] {
    return this.store.getPins(this.store.resolveId(sessionId));
  }

  /**
   * Pins transcript message `seq`, the session's last message ('last', the REPL's \pin) or a
   * note, under the lease rule as every change; every window hears the session changed.
   */
  async pin(sessionId: string, target: { seq: number } | { note: string } | 'last'): Promise<Pin> {
    const agent = await this.agentFor(sessionId);
    const length = this.store.getMeta(agent.id).message_count;
    const pinId = this.store.pin(agent.id, target === 'last' ? { seq: length - 1 } : target);
    this.changed(agent.id);
    return this.store.getPins(agent.id).find((p) => p.id === pinId)!;
  }

  async unpin(sessionId: string, pinId: number): Promise<void> {
    const agent = await this.agentFor(sessionId);
    if (!this.store.unpin(agent.id, pinId)) throw new LoomError(`This session has no pin ${pinId}.`, 'unknown_pin');
    this.changed(agent.id);
  }

  /**
   * Edit and resend (docs/DESIGN.md#branches-in-the-ui): a new branch under the user message at
   * transcript `index`, with `text` in its place (its attached files and images kept); the
   * session edited stays as it was. The model's answer comes with reply(branch). Returns the branch.
   */
  async edit(sessionId: string, index: number, text: string): Promise<SessionMeta> {
    const id = this.store.resolveId(sessionId);
    const original = this.store.getTranscript(id, index, 1)[0];
    if (original?.role !== 'user') {
      throw new LoomError(`Message ${index + 1} is not one you sent; only your own messages can be edited.`, 'bad_branch_point');
    }
    const branch = this.store.appendBranch(id, index, editedUserMessage(original, text));
    const agent = await this.agentFor(branch.id);
    agent.audit.write('user_message', { text, edited_from: id, index });
    return this.changed(branch.id);
  }

  /**
   * Regenerate: a sibling branch for the reply at transcript `index`, forked right after the
   * user message that reply answers; reply(branch) then asks the model again. The request
   * ends with that user message (checked here, so a branch that could not is never made).
   */
  regenerate(sessionId: string, index: number): SessionMeta {
    const id = this.store.resolveId(sessionId);
    if (this.store.getTranscript(id, index, 1)[0]?.role !== 'assistant') {
      throw new LoomError(`Message ${index + 1} is not a reply; only replies can be regenerated.`, 'bad_branch_point');
    }
    const asked = this.userMessageBefore(id, index);
    if (asked === null) throw new LoomError(`No message of yours comes before reply ${index + 1}; there is nothing to answer again.`, 'bad_branch_point');
    const branch = this.store.fork(id, asked + 1, 'retry');
    if (this.store.getContext(branch.id).at(-1)?.role !== 'user') {
      this.store.delete(branch.id);
      throw new LoomError(`The context before reply ${index + 1} does not end with your message; it cannot be regenerated.`, 'bad_branch_point');
    }
    return this.changed(branch.id);
  }

  /**
   * One turn answering the user message the session's context ends with (a branch made by
   * edit or regenerate), without appending a new one. Resolves when the turn has ended.
   */
  async reply(sessionId: string): Promise<TurnResult> {
    const agent = await this.agentFor(sessionId);
    if (agent.busy) throw new LoomError('This session is still busy with the previous message; wait for it or stop it.', 'busy');
    if (agent.messages.at(-1)?.role !== 'user') throw new LoomError('No message of yours is waiting for a reply in this session.', 'nothing_to_answer');
    this.refuseUnchosenModel(agent.id);
    const outcome = await runReplyTurn(agent);
    this.changedIfThere(sessionId);
    return { error: outcome.error ?? null, ...(outcome.failure ? { failure: outcome.failure } : {}) };
  }

  /** Where this session's transcript has sibling branches (the "2 / 3" switchers). */
  branches(sessionId: string): BranchPoint[] {
    return this.store.branchPoints(this.store.resolveId(sessionId));
  }

  /** The session's parent, siblings and forks. */
  family(sessionId: string): SessionFamily {
    return this.store.family(this.store.resolveId(sessionId));
  }

  /** 'session' also grants what the approval offered; with nothing offered it counts as 'once'. */
  answerApproval(requestId: string, answer: ApprovalAnswer): void {
    const pending = this.pending.get(requestId);
    if (pending?.request.kind !== 'approval') return;
    pending.settle(answer === 'session' && !pending.request.offer ? 'once' : answer);
  }

  answerQuestion(requestId: string, answer: string | null): void {
    const pending = this.pending.get(requestId);
    if (pending?.request.kind === 'question') pending.settle(answer);
  }

  /** The session's "allow for this session" grants: none when it is not open in this process. */
  grants(sessionId: string): SessionGrant[] {
    return this.sessions.get(sessionId)?.agent.grants.list() ?? [];
  }

  /** Takes a grant back (audited; every window hears of it); returns the grants left. */
  revokeGrant(sessionId: string, grantId: string): SessionGrant[] {
    const agent = this.sessions.get(sessionId)?.agent;
    const grant = agent?.grants.revoke(grantId);
    if (!agent || !grant) throw new LoomError('That permission is no longer granted in this session.', 'not_found');
    agent.audit.write('permission_revoke', { grant });
    agent.emitGrants();
    return agent.grants.list();
  }

  /** What the session waits on, oldest first: a window that reloaded shows these again. */
  pendingRequests(sessionId: string): PendingRequest[] {
    return [...this.pending.values()].filter((p) => p.sessionId === sessionId).map((p) => ({ ...p.request }));
  }

  contextTokens(sessionId: string): number {
    const agent = this.sessions.get(sessionId)?.agent;
    return agent ? agent.budget.estimate() : estimateTotal(this.store.getContext(this.store.resolveId(sessionId)));
  }

  /** True while a turn of the session runs in this process (a sync leaves such a session to its inbox). */
  isBusy(sessionId: string): boolean {
    return this.sessions.get(sessionId)?.agent.busy ?? false;
  }

  /** With the reply streaming in now, as far as it came: a window that reloaded shows it whole. */
  contextState(sessionId: string): ContextState {
    const agent = this.sessions.get(sessionId)?.agent;
    const replyInFlight = agent?.busy ? agent.replyInFlight : '';
    const instructions = agent?.instructions
      ? { file: agent.instructions.file, bytes: agent.instructions.bytes, truncated: agent.instructions.truncated }
      : null;
    return {
      contextTokens: this.contextTokens(sessionId),
      // The budget in force: the user's, lowered to the model's window when that is smaller.
      maxContextTokens: agent?.budget.maxTokens ?? this.config.maxContextTokens,
      busy: agent?.busy ?? false,
      replyInFlight,
      instructions,
      modelWindow: agent?.window ?? null,
    };
  }

  /** Files the session's tools changed (absolute paths), whether or not it is open here: the store keeps what they were. */
  async changedFiles(sessionId: string): Promise<string[]> {
    return this.snapshotsOf(sessionId).changedFiles();
  }

  /**
   * Puts the changed files back as they were (security/snapshots.ts says when one is left
   * alone); refused during a turn, this process's or another's (the revert holds the lease).
   */
  async revertChanges(sessionId: string): Promise<RevertReport> {
    if (this.sessions.get(sessionId)?.agent.busy) {
      throw new LoomError('This session is still working; stop it or wait for the turn to end before reverting its changes.', 'busy');
    }
    const lease = this.store.acquireLease(this.store.resolveId(sessionId), this.owner);
    try {
      return await this.snapshotsOf(sessionId).revert();
    } finally {
      lease.release();
    }
  }

  private snapshotsOf(sessionId: string): FileSnapshots {
    return this.sessions.get(sessionId)?.agent.snapshots ?? new FileSnapshots(this.store.fileOriginals(this.store.resolveId(sessionId)));
  }

  /** Names of secret-looking environment variables that tools do not get (not passed by the user). */
  secretEnvNames(): string[] {
    return withheldSecretEnvNames(process.env, this.config.passEnv);
  }

  /**
   * New settings for the sessions to come and the next turn of the open ones (the desktop
   * settings dialog). The tool list is fixed for the engine's life.
   */
  updateConfig(patch: Partial<Pick<LoomConfig, 'baseUrl' | 'model' | 'apiKey' | 'maxContextTokens' | 'modelWindow' | 'mode' | 'passEnv' | 'trashDays'>>): void {
    this.config = { ...this.config, ...patch };
    if (patch.trashDays !== undefined) this.days = patch.trashDays;
    for (const [id, { agent }] of this.sessions) agent.reconfigure(this.config, this.clientFor(id, agent.agent));
  }

  /**
   * Makes `model` the session's model from its next turn on (docs/DESIGN.md#session-model),
   * recorded with when and from what; the setting stays the default for new sessions.
   * Refused while another process works in the session.
   */
  setSessionModel(idOrPrefix: string, model: string, window?: number | null): SessionMeta {
    const id = this.store.resolveId(idOrPrefix);
    const name = model.trim();
    if (!name) throw new LoomError('A model name is required.', 'usage');
    const before = this.store.getMeta(id).model;
    const changed = this.store.whileFree(id, () => this.store.setModel(id, name));
    if (window !== undefined) this.setModelWindow(name, window);
    const agent = this.sessions.get(id)?.agent;
    if (changed && agent) agent.audit.write('model_change', { from: before, to: name });
    if ((changed || window !== undefined) && agent) agent.reconfigure(this.config, this.clientFor(id, agent.agent));
    return this.changed(id);
  }

  /**
   * The user's window for `model` on the configured server (the session model dialog):
   * kept in the store for every session of that model; null forgets it (learnt again).
   */
  private setModelWindow(model: string, tokens: number | null): void {
    if (tokens === null) this.windows.forgetSetting(this.config.baseUrl, model);
    else this.windows.record(this.config.baseUrl, model, 'setting', tokens);
    for (const { agent } of this.sessions.values()) if (agent.client.settings.model === model) agent.refreshWindow();
  }

  /**
   * Starts the MCP servers of the configuration (docs/DESIGN.md#mcp-servers); sessions
   * opened from now on are offered their tools. Resolves, never rejects, with the lines the
   * front end tells the user once (a bad file, each server that could not start).
   */
  async startMcpServers(clientVersion: string): Promise<string[]> {
    this.mcpClientVersion = clientVersion;
    this.mcpStart ??= this.applyMcpConfig();
    await this.mcpStart;
    return mcpProblems(this.mcpOverview());
  }

  /**
   * Saves MCP server `name` in the configuration file (in place of `previous`, a rename) and
   * applies the file: a new or changed server starts, the others keep running; open
   * sessions are offered the tools as they are then from their next request.
   */
  async saveMcpServer(name: string, edit: McpServerEdit, previous?: string): Promise<McpOverview> {
    await this.mcpStart;
    await saveMcpServer(this.mcpConfigFile(), name, edit, previous);
    return this.reloadMcp();
  }

  async removeMcpServer(name: string): Promise<McpOverview> {
    await this.mcpStart;
    await removeMcpServer(this.mcpConfigFile(), name);
    return this.reloadMcp();
  }

  /** Stops MCP server `name` and starts it again (after it stopped or failed, or to pick up its own changes). */
  async restartMcpServer(name: string): Promise<McpOverview> {
    await this.mcpStart;
    if (!this.mcpOverview().servers.some((s) => s.name === name && s.state !== 'disabled')) {
      throw new LoomError(`There is no running or failed MCP server "${name}" to restart.`, 'not_found');
    }
    await this.mcp?.restart(name);
    this.offerMcpTools();
    return this.mcpOverview();
  }

  private async reloadMcp(): Promise<McpOverview> {
    this.mcpStart = this.applyMcpConfig();
    await this.mcpStart;
    return this.mcpOverview();
  }

  private async applyMcpConfig(): Promise<void> {
    const configFile = this.mcpConfigFile();
    // Named by the user, so a missing file is a problem too.
    const config = loadMcpConfig(configFile, this.config.mcpConfigFile !== undefined);
    if (this.mcp) {
      await this.mcp.apply(config);
      this.offerMcpTools();
      return;
    }
    if (config.servers.length === 0) {
      this.mcpConfigProblem = config.problem;
      return;
    }
    // Loaded only when there is a server to start: the MCP client and its schemas are ~450 KB
    // that neither the lifecycle commands nor a chat without MCP servers should parse.
    const { McpServers } = await import('./mcp/mcp-servers');
    const mcp = await McpServers.start({
      configFile,
      config,
      projectDir: this.mcpFolder(),
      passEnv: this.config.passEnv,
      clientVersion: this.mcpClientVersion,
      builtInToolNames: this.ownTools.map((t) => t.name),
    });
    if (this.closedAll) {
      // Closed while they started: stopped here, so whoever waits for the start waits for this too.
      await mcp.close();
    } else {
      this.mcp = mcp;
      this.offerMcpTools();
    }
  }

  /** Loom's own tools and the MCP servers' as they are now, for new sessions and the next request of open ones. */
  private offerMcpTools(): void {
    const offered = this.mcp?.tools() ?? [];
    // Loom's own list stays the same array when there is nothing to add (a tool registered later is still offered).
    this.tools = offered.length > 0 ? [...this.ownTools, ...offered] : this.ownTools;
    for (const { agent } of this.sessions.values()) agent.offerTools(this.tools);
  }

  /**
   * Resolves once the MCP servers close() stopped have exited (a server that ignores SIGTERM
   * is killed after a grace): a front end about to exit waits for it, so none is left behind.
   */
  mcpServersClosed(): Promise<void> {
    return this.mcpClosing;
  }

  /** The MCP servers and how they are doing; none until startMcpServers has started them. */
  mcpOverview(): McpOverview {
    return this.mcp?.overview() ?? { configFile: this.mcpConfigFile(), problem: this.mcpConfigProblem, servers: [] };
  }

  /**
   * The folder MCP stdio servers start in, once per engine: the run's project folder, else
   * an empty one of Loom's own in the data folder (the app without --project), never the
   * folder the app happens to run in.
   */
  private mcpFolder(): string {
    if (this.projectDir !== undefined) return this.projectDir;
    return ensurePrivateDir(path.join(this.config.dataDir, 'mcp-folder'));
  }

  private mcpConfigFile(): string {
    return this.config.mcpConfigFile ?? defaultMcpConfigFile(this.config.dataDir);
  }

  /**
   * Ends work on one session (or all): stops it (its turn lets the lease go), marks it saved. Closing
   * all of them also stops the MCP servers (their whole process groups): the engine is done.
   */
  close(sessionId?: string): void {
    if (sessionId === undefined) {
      this.closedAll = true;
      this.mcpClosing = this.mcp?.close() ?? Promise.resolve();
    }
    const ids = sessionId === undefined ? [...this.sessions.keys()] : [sessionId];
    for (const id of ids) {
      const open = this.sessions.get(id);
      if (!open) continue;
      this.stop(id);
      this.sessions.delete(id);
      open.agent.audit.write('session_end', { status: 'saved', tool_calls: open.agent.toolCalls, user_turns: open.agent.userTurns });
      // Deleted by another process between turns: nothing is left to mark.
      if (this.store.has(id)) this.store.setStatus(id, 'saved');
      // Its grants end with it: windows still listing them hear so.
      if (open.agent.grants.list().length) this.emit({ type: 'grants', sessionId: id, grants: [] });
      this.changedIfThere(id);
    }
  }

  /**
   * Puts the folder and Loom's own system prompt for it in force, refused while another
   * process works in the session (it holds the lease for its turn): the prompt is built
   * afresh for every open, so one that came with an import, or one for another folder or
   * tool set, is never sent again (it stays in the transcript). No lease is kept: each turn
   * takes it (AgentSession.beginTurn).
   */
  private attach(id: string, projectDir: string, resumed: boolean, instructions: ProjectInstructions | null, agents: AgentRegistry): AgentSession {
    const definition = sessionAgent(agents, this.store.getMeta(id).agent);
    this.store.whileFree(id, () => {
      this.store.setProject(id, { cwd: projectDir, systemPrompt: buildSystemPrompt({ projectDir, tools: this.tools, instructions, agent: definition }) });
      this.store.setStatus(id, 'active');
    });
    const agent = new AgentSession({
      sessionId: id,
      projectDir,
      config: this.config,
      agent: definition,
      store: this.store,
      client: this.clientFor(id, definition),
      memory: this.memory,
      windows: this.windows,
      instructions,
      host: this.hostFor(id),
      tools: this.tools,
      auditDir: auditDir(this.config.dataDir, this.config.logDir),
      owner: this.owner,
      subagents: this.subagentHost,
    });
    this.sessions.set(id, { agent });
    this.auditStart(agent, resumed);
    return agent;
  }

  /** The agent lookups of run_subagent calls, one after another: children are created (and listed) in call order. */
  private childLookups: Promise<unknown> = Promise.resolve();

  /** The agent files a parent read for its turn's run_subagent calls (turnAgents). */
  private readonly childRegistries = new WeakMap<AgentSession, { turn: number; registry: Promise<AgentRegistry> }>();

  /** How a top-level session's run_subagent calls open their children (docs/DESIGN.md#sub-agents). */
  private readonly subagentHost: SubagentHost = {
    agentNamed: (parent, name) => {
      const lookup = this.childLookups.then(async () => namedAgent(await this.turnAgents(parent), name));
      this.childLookups = lookup.catch(() => undefined);
      return lookup;
    },
    maxParallel: () => this.config.maxParallelSubagents ?? DEFAULTS.maxParallelSubagents,
    open: (parent, callId, definition, task) => this.openChild(parent, callId, definition, task),
  };

  /**
   * The agents `parent`'s folder has, read once per parent turn: the calls of one reply (and
   * of the turn's later replies) start their children without walking the agent folders
   * each time; a file written meanwhile is read at the parent's next turn.
   */
  private turnAgents(parent: AgentSession): Promise<AgentRegistry> {
    const cached = this.childRegistries.get(parent);
    if (cached?.turn === parent.userTurns) return cached.registry;
    const registry = this.agentsIn(parent.projectDir);
    this.childRegistries.set(parent, { turn: parent.userTurns, registry });
    return registry;
  }

  /**
   * A child session for call `callId` of `parent`: its own row linked to both, its own lease,
   * Loom's system prompt for the agent's tools with the agent's prompt after it, and the
   * parent's folder, model and settings narrowed by the agent. It cannot start children of
   * its own (depth 1). `finish` records how it ended, and closes it.
   */
  private openChild(parent: AgentSession, callId: string, definition: AgentDefinition, task: string): OpenChild {
    // Never run_subagent: a child cannot start children (depth 1).
    const tools = parent.tools.filter((t) => t.name !== RUN_SUBAGENT);
    const systemPrompt = buildSystemPrompt({ projectDir: parent.projectDir, tools, instructions: parent.instructions, agent: definition });
    // Its row, prompt and task in one transaction: one commit (one fsync) per start, so parallel starts do not queue
    // behind each other's. Its lease is its turn's, as every session's (AgentSession.beginTurn).
    const taskMessage: ChatMessage = { role: 'user', content: task };
    const { id, appended } = this.store.batch(() => {
      const meta = this.store.create({
        model: parent.client.settings.model,
        projectDir: parent.projectDir,
        title: `${definition.name}: ${taskLabel(task)}`,
        spawn: { parentId: parent.id, callId, agent: definition.name },
      });
      this.store.setProject(meta.id, { cwd: parent.projectDir, systemPrompt });
      return { id: meta.id, appended: this.store.appendMessage(meta.id, taskMessage) };
    });
    const origin: RequestOrigin = { childId: id, callId, agent: definition.name, task };
    const agent = new AgentSession({
      sessionId: id,
      projectDir: parent.projectDir,
      // The parent's settings as its agent narrowed them, narrowed again by the child's: a child never widens them.
      config: parent.config,
      agent: definition,
      store: this.store,
      client: this.clientFor(id, definition),
      memory: this.memory,
      windows: this.windows,
      instructions: parent.instructions,
      host: childHost(this.hostFor(parent.id, origin), origin),
      tools,
      auditDir: auditDir(this.config.dataDir, this.config.logDir),
      owner: this.owner,
      costRoot: parent.costRoot,
    });
    this.sessions.set(id, { agent });
    this.auditStart(agent, false);
    agent.audit.write('user_message', { text: task });
    this.emit({ type: 'message', sessionId: id, seq: appended.seq, message: taskMessage, facts: appended.facts });
    this.emitChild(parent.id, id, callId, definition.name, task, 'running');
    return {
      agent,
      finish: (state) => {
        // Its state and its close (status saved) in one commit, as its start is one.
        this.store.batch(() => {
          this.store.setChildState(id, state);
          this.close(id);
        });
        this.emitChild(parent.id, id, callId, definition.name, task, state);
      },
    };
  }

  private emitChild(parentId: string, childId: string, callId: string, agent: string, task: string, state: ChildState): void {
    this.emit({ type: 'subagent', sessionId: parentId, childId, callId, agent, task, state });
  }

  private auditStart(agent: AgentSession, resumed: boolean): void {
    const c = this.config;
    agent.audit.write('session_start', {
      resumed,
      owner: this.owner,
      pid: process.pid,
      project_dir: agent.projectDir,
      secret_env_names: this.secretEnvNames(),
    });
    agent.audit.write('config', {
      base_url: c.baseUrl,
      model: agent.client.settings.model,
      agent: agent.agent.name,
      mode: agent.config.mode,
      tools: this.tools.map((t) => t.name),
      mcp_servers: this.mcp?.overview().servers.map(({ name, transport, state, sandboxed, message }) => ({ name, transport, state, sandboxed, message })) ?? [],
      pass_env: c.passEnv ?? [],
      max_context_tokens: c.maxContextTokens,
      tool_timeout_sec: c.toolTimeoutSec,
      llm_timeout_sec: c.llmTimeoutSec,
      llm_idle_timeout_sec: c.llmIdleTimeoutSec,
      max_turns: c.maxTurns,
      max_tool_calls: c.maxToolCalls,
      max_cost_usd: c.maxCostUsd,
      approve_plan: c.approvePlan,
    });
  }

  /**
   * The model another agent recorded for a session it imported (or one branched from it)
   * that nobody has chosen in Loom since: it is that agent's model, which the user's server
   * may not have, and is not sent there without asking (docs/DESIGN.md#importing-from-other-agents).
   */
  unchosenModel(idOrPrefix: string): { model: string; source: string } | null {
    const id = this.store.resolveId(idOrPrefix);
    const { model } = this.store.getMeta(id);
    if (model === null || this.store.getModelChanges(id).length > 0) return null;
    const source = this.imports.sourceOfLine(id);
    if (source === undefined) return null;
    const known = IMPORT_SOURCES.find((name) => name === source);
    return { model, source: known ? IMPORT_SOURCE_LABELS[known] : source };
  }

  private refuseUnchosenModel(id: string): void {
    const unchosen = this.unchosenModel(id);
    if (!unchosen) return;
    throw new LoomError(
      `${unchosen.source} recorded this session with the model ${unchosen.model}, which Loom does not send to your server without asking: choose this session's model first.`,
      'model_not_chosen',
    );
  }

  /** A client for the agent's model, else the session's own (else the default). */
  private clientFor(sessionId: string, agent: AgentDefinition): ModelClient {
    const model = agent.model ?? this.store.getMeta(sessionId).model ?? this.config.model;
    return clientFor({ ...this.config, model }, this.prices);
  }

  /**
   * The open session's agent, opened first when it is not; a session whose folder has gone
   * since it was opened is closed and refused (sessionFolder), so no tool runs elsewhere.
   */
  private async agentFor(sessionId: string): Promise<AgentSession> {
    const open = this.sessions.get(sessionId);
    if (open && !open.agent.busy && !folderExists(open.agent.projectDir)) this.close(sessionId);
    else if (open) return open.agent;
    const meta = await this.openSession(sessionId);
    return this.sessions.get(meta.id)!.agent;
  }

  /** The transcript index of the last user message before `index`, or null. */
  private userMessageBefore(id: string, index: number): number | null {
    const PAGE = 200;
    for (let end = index; end > 0; end -= PAGE) {
      const from = Math.max(0, end - PAGE);
      const page = this.store.getTranscript(id, from, end - from);
      const at = page.findLastIndex((m) => m.role === 'user');
      if (at >= 0) return from + at;
    }
    return null;
  }

  /** Session `sessionId`'s face to the user; `subagent`: the child of it whose requests these are, named in each. */
  private hostFor(sessionId: string, subagent?: RequestOrigin): AgentHost {
    const from = subagent && { subagent };
    return {
      emit: (event) => this.emit(event),
      approve: (request) =>
        this.waitForAnswer(sessionId, 'deny', (requestId) => ({ kind: 'approval', requestId, ...request, ...from })) as Promise<ApprovalAnswer>,
      ask: (question) => this.waitForAnswer(sessionId, null, (requestId) => ({ kind: 'question', requestId, question, ...from })),
    };
  }

  /**
   * Emits the request and waits for its answer; with nobody listening the answer is "no".
   * When every listener failed on it nobody will answer either: the request fails with the
   * listener's error (the tool call's result says so) rather than waiting without end.
   */
  private waitForAnswer(sessionId: string, fallback: Answer, describe: (requestId: string) => PendingRequest): Promise<Answer> {
    if (!this.hasListeners()) return Promise.resolve(fallback);
    const requestId = randomUUID();
    const request = describe(requestId);
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, {
        sessionId,
        request,
        fallback,
        settle: (value) => {
          this.pending.delete(requestId);
          resolve(value);
        },
      });
      const { delivered, firstError } = this.emit(requestEvent(sessionId, request));
      if (delivered === 0 && this.pending.delete(requestId)) reject(firstError);
    });
  }

  private settlePending(sessionId: string): void {
    for (const pending of [...this.pending.values()]) {
      if (pending.sessionId === sessionId) pending.settle(pending.fallback);
    }
  }
}

/** The event that announces a request: the same fields, under the event's type. */
function requestEvent(sessionId: string, request: PendingRequest): EngineEvent {
  if (request.kind === 'approval') {
    const { kind: _kind, ...details } = request;
    return { type: 'approval', sessionId, ...details };
  }
  const { kind: _kind, ...question } = request;
  return { type: 'question', sessionId, ...question };
}

function clientFor(config: LoomConfig, prices: PriceTable): ModelClient {
  return new ModelClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    model: config.model,
    timeoutMs: config.llmTimeoutSec * 1000,
    idleTimeoutMs: config.llmIdleTimeoutSec * 1000,
    retryBaseMs: retryBaseMs(process.env),
    prices,
  });
}

/**
 * LOOM_RETRY_BASE_MS sets the first backoff step of model retries (default 500 ms): the
 * tests that talk to a server that is down set it low, so the retries they check are quick.
 */
function retryBaseMs(env: NodeJS.ProcessEnv): number | undefined {
  const ms = Number(env.LOOM_RETRY_BASE_MS);
  return env.LOOM_RETRY_BASE_MS && Number.isInteger(ms) && ms >= 0 ? ms : undefined;
}

/** The agent named `name`, else a LoomError listing the agents there are. */
function namedAgent(registry: AgentRegistry, name: string): AgentDefinition {
  const agent = findAgent(registry, name);
  if (agent) return agent;
  throw new LoomError(`There is no agent named "${name}". Agents: ${registry.agents.map((a) => a.name).join(', ')}.`, 'unknown_agent');
}

/** The session's recorded agent; the default when it records none or one not defined here (openSession says so). */
function sessionAgent(registry: AgentRegistry, name: string | null): AgentDefinition {
  return findAgent(registry, name ?? DEFAULT_AGENT) ?? findAgent(registry, DEFAULT_AGENT)!;
}

/** --tools: the named tools only, in the registry's order; an unknown name is refused. */
export function selectTools(names: string[] | undefined): Tool[] {
  if (!names) return ALL_TOOLS;
  const known = new Set(ALL_TOOLS.map((t) => t.name));
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length) {
    throw new LoomError(`Unknown tool${unknown.length > 1 ? 's' : ''} in --tools: ${unknown.join(', ')}. Available: ${[...known].join(', ')}.`, 'usage');
  }
  return ALL_TOOLS.filter((t) => names.includes(t.name));
}
