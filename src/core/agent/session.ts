/**
 * One open session as the agent sees it: its working context (kept in memory and committed
 * to the store message by message), its budget, plan, file snapshots, audit log and the
 * counters the caps need. The loop, the tool runner and recovery all work on this object.
 */
import type { ToolEffect } from '../../shared/approvals';
import type { ChatMessage, PlanState } from '../../shared/types';
import type { AgentDefinition } from '../agents/definition';
import { narrowConfig, offeredTools } from '../agents/narrow';
import { AuditLog } from '../audit/audit-log';
import type { LoomConfig } from '../config';
import { ContextBudget } from '../context/budget';
import { Ledger } from '../context/ledger';
import type { MemoryStore } from '../memory/memory-store';
import type { ModelClient, ToolSpec } from '../model/client';
import { effectiveBudget, resolveWindow, type ModelWindow } from '../model/context-window';
import type { ModelWindows } from '../model/window-store';
import { SessionGrants } from '../security/session-grants';
import { FileSnapshots } from '../security/snapshots';
import type { AppendFacts, Lease, SessionStore } from '../store/session-store';
import { toolSpecs } from '../tools/index';
import type { Tool } from '../tools/tool';
import type { AgentHost } from './host';
import type { ProjectInstructions } from './project-instructions';
import type { SubagentHost } from './subagent';
import { buildSystemPrompt } from './system-prompt';

export interface AgentSessionOptions {
  sessionId: string;
  projectDir: string;
  config: LoomConfig;
  store: SessionStore;
  client: ModelClient;
  memory: MemoryStore;
  host: AgentHost;
  /** The session's tools (already limited by --tools); the model is offered those the agent uses. */
  tools: Tool[];
  /** The session's agent: it narrows the settings and the tools (agents/narrow.ts). */
  agent: AgentDefinition;
  auditDir: string;
  /** What is known of each model's window (docs/DESIGN.md#the-models-window). */
  windows: ModelWindows;
  /** The project's instructions file the system prompt carries, if any. */
  instructions: ProjectInstructions | null;
  /** Who holds the session's lease during this agent's units of work (engine.ts's owner). */
  owner: string;
  /** How run_subagent starts children; absent for a session that may not (a sub-agent's own, docs/DESIGN.md#sub-agents). */
  subagents?: SubagentHost;
  /** A sub-agent's: the session at the top of its family, whose --max-cost-usd covers the whole family. */
  costRoot?: string;
}

export class AgentSession {
  readonly id: string;
  readonly projectDir: string;
  /** The settings as the agent narrows them: what the loop, the caps and the gate go by. */
  config: LoomConfig;
  agent: AgentDefinition;
  readonly store: SessionStore;
  client: ModelClient;
  readonly memory: MemoryStore;
  readonly host: AgentHost;
  /** Every tool of the session; the gate refuses those the agent does not use. */
  tools: Tool[];
  /** The specs of the tools the agent uses, as every chat request offers them (none when it uses none). */
  toolSpecs: ToolSpec[] | undefined;
  readonly audit: AuditLog;
  readonly windows: ModelWindows;
  /** The project's instructions file in the system prompt (AGENTS.md or CLAUDE.md), if one was read. */
  readonly instructions: ProjectInstructions | null;
  readonly subagents: SubagentHost | undefined;
  /** The session whose --max-cost-usd this one counts against, with all its sub-agents: itself unless it is a sub-agent. */
  readonly costRoot: string;
  /** The window of the session's model on its server, when known: it bounds the budget and the summariser's requests. */
  window: ModelWindow | null = null;
  /** The server and model whose window this session last made sure of (context-guard.ts). */
  windowAskedFor: string | null = null;
  /** Kept in the store: a restart still lists and reverts what the session changed. */
  readonly snapshots: FileSnapshots;
  /** "Allow for this session": kept while the session is open here, never stored. */
  readonly grants = new SessionGrants();
  budget: ContextBudget;
  private ledgerState: Ledger | null = null;
  /** The working context, always equal to what the store holds. */
  messages: ChatMessage[];
  plan: PlanState;
  /** Tool calls run (or attempted) since the session was opened: --max-tool-calls. */
  toolCalls = 0;
  /** User messages sent since the session was opened: drives the listing summary refresh. */
  userTurns = 0;
  /** The reply streaming in now, as far as it came: kept if the user stops, shown to a reloaded window. */
  replyInFlight = '';
  /** --approve-plan: set once the user approved the plan. */
  planApproved = false;
  private turn: AbortController | null = null;
  /**
   * The session's lease, held for one unit of work only (docs/DESIGN.md#who-may-change-a-session):
   * between turns another process may work in the session or change it.
   */
  private lease: Lease | null = null;
  private readonly owner: string;
  /** The session as this agent last read or wrote it (freshness()): another process's work since changes it. */
  private seen: string;
  /** Settings given during a turn: they take effect when it ends (the next turn's requests use them). */
  private nextSettings: { config: LoomConfig; client: ModelClient; agent: AgentDefinition } | null = null;
  /** Work after a turn (the listing summary): never busy, cancelled by the next unit of work. */
  private background: { controller: AbortController; done: Promise<void> } | null = null;

  constructor(opts: AgentSessionOptions) {
    this.id = opts.sessionId;
    this.projectDir = opts.projectDir;
    this.agent = opts.agent;
    this.config = narrowConfig(opts.config, opts.agent);
    this.store = opts.store;
    this.client = opts.client;
    this.memory = opts.memory;
    this.host = opts.host;
    this.tools = opts.tools;
    this.toolSpecs = specsFor(opts.agent, opts.tools);
    this.audit = new AuditLog(opts.auditDir, opts.sessionId);
    this.messages = opts.store.getContext(opts.sessionId);
    this.plan = opts.store.getPlan(opts.sessionId);
    this.windows = opts.windows;
    this.instructions = opts.instructions;
    this.subagents = opts.subagents;
    this.costRoot = opts.costRoot ?? opts.sessionId;
    this.budget = budgetFor(opts.config.maxContextTokens, this.messages);
    this.owner = opts.owner;
    this.snapshots = new FileSnapshots(opts.store.fileOriginals(opts.sessionId));
    this.seen = this.freshness();
    this.refreshWindow();
  }

  /**
   * Reads the model's window again (the settings, the store: a refusal or the server may
   * have taught it) and fits the budget to it: the user's budget, lowered to what the
   * model can take with room to answer.
   */
  refreshWindow(): void {
    const { baseUrl, model } = this.client.settings;
    const known = this.windows.known(baseUrl, model);
    // The window set for this very model (the session model dialog) wins over the general one.
    if (known.setting === undefined && this.config.modelWindow !== undefined) known.setting = this.config.modelWindow;
    this.window = resolveWindow(known);
    this.budget.resize(effectiveBudget(this.config.maxContextTokens, this.window));
  }

  /** The server refused a request as too big and named its limit: remembered for every process, and the budget follows. */
  learnWindow(tokens: number): void {
    const { baseUrl, model } = this.client.settings;
    this.windows.record(baseUrl, model, 'refusal', tokens);
    this.refreshWindow();
  }

  /**
   * What the session's tool calls did to the project (context/ledger.ts): read from the
   * transcript the first time it is needed, then kept up to date message by message.
   */
  ledger(): Ledger {
    this.ledgerState ??= Ledger.from(this.store.getTranscript(this.id));
    return this.ledgerState;
  }

  /** Commits a message (and its facts) to the store first, then to memory and the listeners; returns its transcript position. */
  append(message: ChatMessage, facts: AppendFacts = {}): number {
    const recorded = this.store.appendMessage(this.id, message, facts);
    this.messages.push(message);
    this.budget.add(message);
    this.ledgerState?.see(message);
    this.host.emit({ type: 'message', sessionId: this.id, seq: recorded.seq, message, facts: recorded.facts });
    return recorded.seq;
  }

  /** The transcript position the next appended message takes. */
  nextSeq(): number {
    return this.store.getMeta(this.id).message_count;
  }

  /** After a compaction: the store already holds the new context. */
  adoptContext(messages: ChatMessage[]): void {
    this.messages = [...messages];
  }

  /**
   * Reads the context and plan again from the store, between turns: another connection
   * changed them (a sync applied another device's messages to this open session).
   */
  reload(): void {
    this.seen = this.freshness();
    this.adoptContext(this.store.getContext(this.id));
    this.ledgerState = null;
    this.budget.reset(this.messages);
    this.plan = this.store.getPlan(this.id);
  }

  /** What every write to the session moves: its length and its last update (a turn, a compaction, a plan). */
  private freshness(): string {
    try {
      const meta = this.store.getMeta(this.id);
      return `${meta.message_count} ${meta.updated_at}`;
    } catch {
      return ''; // Gone (deleted during the turn, or the store closed): no turn follows to read it.
    }
  }

  /**
   * New settings (the settings dialog), a new model or a new agent for this session: at
   * once between turns, else when the turn running now ends, so a turn never changes
   * model or agent midway.
   */
  reconfigure(config: LoomConfig, client: ModelClient, agent: AgentDefinition = this.nextSettings?.agent ?? this.agent): void {
    if (this.busy) {
      this.nextSettings = { config, client, agent };
      return;
    }
    const newAgent = agent !== this.agent;
    this.agent = agent;
    this.config = narrowConfig(config, agent);
    this.toolSpecs = specsFor(agent, this.tools);
    if (newAgent) this.putPromptInForce();
    this.client = client;
    const before = this.budget.maxTokens;
    this.refreshWindow();
    // An open tab's meter shows the new budget at once, not after the next turn.
    if (this.budget.maxTokens !== before) this.emitUsage();
  }

  /** Loom's system prompt for the agent now in force, first in the context (the one it replaces stays in the transcript). */
  private putPromptInForce(): void {
    const systemPrompt = buildSystemPrompt({ projectDir: this.projectDir, tools: this.tools, instructions: this.instructions, agent: this.agent });
    this.store.setProject(this.id, { cwd: this.projectDir, systemPrompt });
    this.adoptContext(this.store.getContext(this.id));
    this.budget.reset(this.messages);
  }

  /** The tools from the next request on: the MCP servers' changed (a server added, removed, restarted in the settings). */
  offerTools(tools: Tool[]): void {
    this.tools = tools;
    this.toolSpecs = specsFor(this.agent, tools);
  }

  /** Tells every window the session's grants as they are now. */
  emitGrants(): void {
    this.host.emit({ type: 'grants', sessionId: this.id, grants: this.grants.list() });
  }

  /** The effect a tool of this session declares; null for a name it does not know. */
  effectOf(toolName: string): ToolEffect | null {
    return this.tools.find((t) => t.name === toolName)?.effects.kind ?? null;
  }

  savePlan(plan: PlanState): void {
    this.store.savePlan(this.id, plan);
    this.plan = plan;
  }

  emitUsage(): void {
    this.host.emit({
      type: 'usage',
      sessionId: this.id,
      usage: this.store.getUsage(this.id),
      contextTokens: this.budget.estimate(),
      maxContextTokens: this.budget.maxTokens,
    });
  }

  /** True for a sub-agent's session: it has no listing summary of its own to ask for (its title names its task). */
  get isChild(): boolean {
    return this.costRoot !== this.id;
  }

  get busy(): boolean {
    return this.turn !== null;
  }

  /**
   * Starts a unit of work that stop() can cut short; returns its signal. Background work
   * still running is cancelled first, so its request never interleaves with the turn's.
   * Takes the session's lease (a LoomError "in use" while another process works in it) and
   * reads the session again when another process changed it since: the turn goes on from
   * what that one wrote.
   */
  beginTurn(): AbortSignal {
    this.cancelBackground();
    this.lease = this.store.acquireLease(this.id, this.owner);
    if (this.freshness() !== this.seen) this.reload();
    this.turn = new AbortController();
    return this.turn.signal;
  }

  /** Runs `work` after a turn without holding the session busy; `work` must not throw. */
  runInBackground(work: (signal: AbortSignal) => Promise<void>): void {
    this.cancelBackground();
    const controller = new AbortController();
    const done = work(controller.signal).finally(() => {
      if (this.background?.controller === controller) this.background = null;
    });
    this.background = { controller, done };
  }

  cancelBackground(): void {
    this.background?.controller.abort();
    this.background = null;
  }

  /** Resolves once the background work running now has ended. */
  backgroundSettled(): Promise<void> {
    return this.background?.done ?? Promise.resolve();
  }

  endTurn(): void {
    this.turn = null;
    this.seen = this.freshness();
    this.lease?.release();
    this.lease = null;
    const next = this.nextSettings;
    this.nextSettings = null;
    if (next) this.reconfigure(next.config, next.client, next.agent);
  }

  /** Aborts the model request or tool in flight; the loop stops before the next step. */
  stop(): void {
    this.turn?.abort();
  }
}

function specsFor(agent: AgentDefinition, tools: readonly Tool[]): ToolSpec[] | undefined {
  const offered = offeredTools(agent, tools);
  return offered.length ? toolSpecs(offered) : undefined;
}

function budgetFor(maxTokens: number, messages: readonly ChatMessage[]): ContextBudget {
  const budget = new ContextBudget(maxTokens);
  budget.reset(messages);
  return budget;
}
