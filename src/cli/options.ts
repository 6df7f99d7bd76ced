/**
 * The `loom` command line (docs/DESIGN.md#command-line): every flag, its validation, and what it asks for —
 * a LoomConfig plus one action (a lifecycle command or a chat). A usage error is a
 * UsageError with one clear sentence; the caller prints it and exits 2.
 */
import path from 'node:path';
import { DEFAULTS, PERMISSION_MODES, type LoomConfig, type PermissionMode } from '../core/config';
import { resolveDataDir } from '../core/paths';
import { DEFAULT_TRASH_DAYS } from '../shared/settings';
import { HubUrlError, parseHubUrl, type HubConfig } from '../core/sync/hub-url';
import { IMPORT_SOURCES, type ImportSourceName } from '../shared/import-sources';
import { EXPORT_FORMATS, type ExportFormat } from '../shared/export-name';
import { ENV_VAR_NAME } from '../shared/settings';
import { renderHelp, type HelpPage } from './help-text';
import { parseOptions, UsageError, type OptionGroup } from './option-parser';

export type LifecycleAction =
  | { kind: 'list'; includeArchived: boolean; includeChildren: boolean; json: boolean }
  | { kind: 'search'; query: string; includeArchived: boolean; json: boolean }
  | { kind: 'info'; id: string; json: boolean }
  | { kind: 'rename'; id: string; title: string }
  /** at: fork after the at-th transcript message (1 = the system message); all of them when absent. */
  | { kind: 'fork'; id: string; at?: number }
  | { kind: 'pin'; id: string; pinned: boolean }
  | { kind: 'archive'; id: string; archived: boolean }
  | { kind: 'export'; id: string; format: ExportFormat }
  | { kind: 'import'; file: string }
  /** path: a file or folder; the source's default location when absent. */
  | { kind: 'import-from'; source: ImportSourceName; path?: string }
  | { kind: 'delete'; id: string; yes: boolean }
  /** The Trash (docs/DESIGN.md#trash): list it, restore from it, purge from it. */
  | { kind: 'trash'; json: boolean }
  | { kind: 'restore'; id: string }
  | { kind: 'purge'; id: string; yes: boolean };

/** No lifecycle flag: a new session, or one resumed, interactive unless a prompt is given. */
export interface ChatAction {
  kind: 'chat';
  prompt?: string;
  resume?: string;
  continueLast?: boolean;
  /** --model given on the command line: a resumed session takes it as its own model (recorded). */
  model?: string;
  /** --project: a new session's folder (default: the current one), or another for a resumed session whose folder is gone. */
  project?: string;
  /** --agent given on the command line: a resumed session takes it as its own agent (recorded); a new one starts with it. */
  agent?: string;
}

/** `--doctor`: check loom.db and salvage a damaged one; it must not open the store. */
export interface DoctorAction {
  kind: 'doctor';
}

/** The hub commands (docs/DESIGN.md#sync-through-a-hub): they talk to PostgreSQL and load `pg`, nothing else does. */
export type HubAction =
  | { kind: 'hub-init'; hub: HubConfig }
  | { kind: 'hub-add-member'; hub: HubConfig; team: string; member: string }
  | { kind: 'hub-search'; hub: HubConfig; query: string; includeArchived: boolean; json: boolean };

/** `--sync` and `--share` (docs/DESIGN.md#sync-through-a-hub): a share without a hub is queued for the next sync. */
export type SyncAction = { kind: 'sync'; hub: HubConfig } | { kind: 'share'; id: string; team: string; hub?: HubConfig };

export type CliAction = LifecycleAction | ChatAction | DoctorAction | HubAction | SyncAction;

/** What `--version` prints, and the version Loom gives MCP servers when it connects. */
export const LOOM_VERSION = '0.1.0';

export type ParseOutcome =
  | { kind: 'run'; config: LoomConfig; action: CliAction }
  /** --help or --version was shown; nothing else to do. */
  | { kind: 'exit'; code: number };

/** The raw values the parser collects; all strings until validated. */
interface RawOptions {
  dataDir?: string;
  baseUrl?: string;
  model?: string;
  agent?: string;
  apiKey?: string;
  maxContextTokens?: string;
  modelWindow?: string;
  mode?: PermissionMode;
  tools?: string;
  passEnv?: string[];
  toolTimeout?: string;
  llmTimeout?: string;
  llmIdleTimeout?: string;
  maxTurns?: string;
  maxToolCalls?: string;
  maxCostUsd?: string;
  maxParallelSubagents?: string;
  approvePlan?: boolean;
  noProjectInstructions?: boolean;
  logDir?: string;
  mcpConfig?: string;
  prompt?: string;
  resume?: string;
  continue?: boolean;
  project?: string;
  listSessions?: boolean;
  includeArchived?: boolean;
  includeChildren?: boolean;
  json?: boolean;
  search?: string;
  info?: string;
  rename?: string[];
  fork?: string;
  at?: string;
  pin?: string;
  unpin?: string;
  archive?: string;
  unarchive?: string;
  export?: string;
  format?: ExportFormat;
  import?: string;
  importFrom?: string[];
  delete?: string;
  trash?: boolean;
  restore?: string;
  purge?: string;
  trashDays?: string;
  yes?: boolean;
  doctor?: boolean;
  hubInit?: string;
  hubAddMember?: string[];
  sync?: boolean;
  share?: string[];
  /** `--hub` alone: the URL comes from LOOM_HUB. */
  hub?: string | true;
}

/** Every flag, in the order and groups the help shows them. */
const OPTION_GROUPS: readonly OptionGroup[] = [
  {
    title: 'Model and data:',
    options: [
      { flags: '--data-dir <dir>', description: 'data directory (overrides $LOOM_HOME)' },
      { flags: '--base-url <url>', description: `OpenAI-compatible server (env LOOM_BASE_URL; default ${DEFAULTS.baseUrl})` },
      {
        flags: '--model <name>',
        description: `model name (env LOOM_MODEL; default ${DEFAULTS.model}); with --resume/--continue, that session's model from now on`,
      },
      { flags: '--api-key <key>', description: 'API key (env LOOM_API_KEY, then OPENAI_API_KEY)' },
      { flags: '--max-context-tokens <n>', description: `working-context budget in tokens (default ${DEFAULTS.maxContextTokens})` },
      { flags: '--model-window <n>', description: "the model's context window in tokens, when its server does not say (default: learnt)" },
      { flags: '--mode <mode>', description: 'permission mode', choices: PERMISSION_MODES, defaultValue: DEFAULTS.mode },
    ],
  },
  {
    title: 'Limits:',
    options: [
      {
        flags: '--agent <name>',
        description:
          "the session's agent: build (default), plan (read-only), explore, or one of .loom/agents, .claude/agents, .opencode/agent; with --resume/--continue, that session's agent from now on",
      },
      { flags: '--tools <names>', description: 'comma-separated tool names offered to the model (default: all)' },
      {
        flags: '--pass-env <name>',
        description: 'also give tools this environment variable (repeatable; default: PATH, HOME, LANG, LC_*, TERM, TZ, USER, SHELL, TMPDIR only)',
        repeatable: true,
      },
      { flags: '--tool-timeout <sec>', description: `seconds one tool call may take (default ${DEFAULTS.toolTimeoutSec})` },
      { flags: '--llm-timeout <sec>', description: `seconds one model request may take in all, reply included (default ${DEFAULTS.llmTimeoutSec})` },
      { flags: '--llm-idle-timeout <sec>', description: `seconds the model server may stay silent (default ${DEFAULTS.llmIdleTimeoutSec})` },
      { flags: '--max-turns <n>', description: `model requests per user message (default ${DEFAULTS.maxTurns})` },
      { flags: '--max-tool-calls <n>', description: `tool calls per session run (default ${DEFAULTS.maxToolCalls})` },
      {
        flags: '--max-cost-usd <usd>',
        description: `spending limit per session run in US dollars, its sub-agents included (default ${DEFAULTS.maxCostUsd.toFixed(2)})`,
      },
      {
        flags: '--max-parallel-subagents <n>',
        description: `run_subagent calls of one reply that run at once (default ${DEFAULTS.maxParallelSubagents})`,
      },
      { flags: '--approve-plan', description: 'ask for approval of the plan before working on it' },
      { flags: '--no-project-instructions', description: "don't send the project's AGENTS.md (or CLAUDE.md) to the model" },
      { flags: '--log-dir <dir>', description: 'audit log folder (default <data dir>/audit)' },
      { flags: '--mcp-config <file>', description: 'MCP servers whose tools a chat offers, in the mcp.json shape (default <data dir>/mcp.json)' },
    ],
  },
  {
    title: 'Chat (default: a new interactive session):',
    options: [
      { flags: '-p, --prompt <text>', description: 'run one non-interactive turn, print the answer, save the session' },
      { flags: '--resume <id>', description: 'resume a session' },
      { flags: '--continue', description: 'resume the most recently updated unarchived session' },
      {
        flags: '--project <dir>',
        description:
          'the project folder of a new session (default: the current folder); with --resume/--continue, another one for a session whose folder is gone',
      },
    ],
  },
  {
    title: 'Sessions (one at a time; ID = any unique prefix):',
    options: [
      { flags: '--list-sessions', description: 'list sessions, newest first' },
      { flags: '--include-archived', description: 'include archived sessions in --list-sessions / --search' },
      { flags: '--include-children', description: "include sub-agents' sessions in --list-sessions" },
      { flags: '--json', description: 'machine-readable output for --list-sessions, --search and --info' },
      { flags: '--search <query>', description: 'full-text search of titles, summaries and transcripts ("two words": a phrase)' },
      { flags: '--info <id>', description: "show a session's details and usage" },
      { flags: '--rename <id> <title...>', description: "set a session's title" },
      { flags: '--fork <id>', description: 'start a new session from this one, sharing its history; prints the new id' },
      { flags: '--at <n>', description: 'with --fork: share only the first N transcript messages (as --export lists them)' },
      { flags: '--pin <id>', description: 'pin a session: listed first, here and on top of the sidebar' },
      { flags: '--unpin <id>', description: 'unpin a session' },
      { flags: '--archive <id>', description: 'archive a session (hidden from lists and search)' },
      { flags: '--unarchive <id>', description: 'unarchive a session' },
      { flags: '--export <id>', description: 'print a session to stdout, as JSON unless --format says otherwise' },
      { flags: '--format <format>', description: 'export format', choices: EXPORT_FORMATS },
      { flags: '--import <file>', description: "import an exported session as a new one ('-' reads stdin); prints its id" },
      {
        flags: '--import-from <source> [path...]',
        description: `import sessions from another agent (${IMPORT_SOURCES.join(', ')}), from PATH or its default location; importing again adds only what is new`,
      },
      { flags: '--delete <id>', description: 'delete a session (needs --yes): it goes to the Trash, purged after --trash-days' },
      { flags: '--trash', description: 'list the sessions in the Trash, when each was deleted and will be purged (--json for scripts)' },
      { flags: '--restore <id>', description: 'bring a session back from the Trash' },
      { flags: '--purge <id>', description: 'delete a session in the Trash for good (needs --yes)' },
      { flags: '--yes', description: 'confirm --delete or --purge' },
      { flags: '--trash-days <n>', description: `days a deleted session stays in the Trash before it is purged (default ${DEFAULT_TRASH_DAYS})` },
      { flags: '--doctor', description: 'check loom.db for damage; if damaged, salvage what can be read into a new file' },
    ],
  },
  {
    title: 'Sync and teams (a PostgreSQL hub; URL = postgres://user@host/database):',
    options: [
      { flags: '--hub-init <url>', description: "create or upgrade the hub's schema, as the hub's owner role" },
      {
        flags: '--hub-add-member <url> <team> <role...>',
        description: "as the hub's owner: put a Loom user (a role) in a team, which then reads the sessions shared with it",
      },
      { flags: '--hub [url]', description: 'with --search: search the sessions you may read on the hub (URL, else $LOOM_HUB)' },
      { flags: '--sync', description: 'sync with the hub (--hub URL, else $LOOM_HUB) once: push what changed here, pull what changed elsewhere' },
      {
        flags: '--share <id> <team...>',
        description: 'share a session with a team on the hub (at once with --hub or $LOOM_HUB, else at the next sync)',
      },
    ],
  },
  {
    title: 'Help:',
    options: [
      { flags: '-V, --version', description: 'print the version and exit' },
      { flags: '-h, --help', description: 'show this help and exit' },
    ],
  },
];

const HELP_PAGE: HelpPage = {
  usage: 'loom [options]',
  description: 'Loom: an AI agent that works in your project folder, with durable, searchable, forkable sessions.',
  groups: OPTION_GROUPS,
  epilogue: `
Data lives in --data-dir, else $LOOM_HOME, else the desktop app's folder, shared with the app.
Costs (--max-cost-usd, --info) use list prices for known hosted models; local and unknown
models cost $0. Price your own in <data dir>/prices.json, in USD per million tokens:
  {"my-model": {"input_per_mtok": 1.5, "output_per_mtok": 6}}

Examples:
  loom                                  start a new interactive session
  loom -p "summarise README.md"         one turn, print the answer
  loom --continue                       resume the most recent session
  loom --search "parser bug" --json     find sessions, for scripts
  loom --export 3f2a9c1e > s.json && loom --import s.json
  loom --import-from claude-code        import Claude Code's sessions (~/.claude/projects)`,
};

/**
 * Parses `argv` (the arguments after the command name). Throws UsageError on any mistake.
 * --help and --version print here and end the parse.
 */
export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv = process.env): ParseOutcome {
  const parsed = parseOptions(OPTION_GROUPS, argv);
  if (parsed.kind === 'help') process.stdout.write(renderHelp(HELP_PAGE, process.stdout.isTTY ? process.stdout.columns : undefined));
  if (parsed.kind === 'version') process.stdout.write(`${LOOM_VERSION}\n`);
  if (parsed.kind !== 'values') return { kind: 'exit', code: 0 };
  const raw = parsed.values as RawOptions;
  return { kind: 'run', action: toAction(raw, env), config: toConfig(raw, env) };
}

const LIFECYCLE_FLAGS: Array<[keyof RawOptions, string]> = [
  ['listSessions', '--list-sessions'],
  ['search', '--search'],
  ['info', '--info'],
  ['rename', '--rename'],
  ['fork', '--fork'],
  ['pin', '--pin'],
  ['unpin', '--unpin'],
  ['archive', '--archive'],
  ['unarchive', '--unarchive'],
  ['export', '--export'],
  ['import', '--import'],
  ['importFrom', '--import-from'],
  ['delete', '--delete'],
  ['trash', '--trash'],
  ['restore', '--restore'],
  ['purge', '--purge'],
  ['doctor', '--doctor'],
  ['hubInit', '--hub-init'],
  ['hubAddMember', '--hub-add-member'],
  ['sync', '--sync'],
  ['share', '--share'],
];

const CHAT_FLAGS: Array<[keyof RawOptions, string]> = [
  ['prompt', '-p/--prompt'],
  ['resume', '--resume'],
  ['continue', '--continue'],
  ['project', '--project'],
];

function given(raw: RawOptions, flags: Array<[keyof RawOptions, string]>): string[] {
  return flags.filter(([key]) => raw[key] !== undefined).map(([, flag]) => flag);
}

function toAction(raw: RawOptions, env: NodeJS.ProcessEnv): CliAction {
  const lifecycle = given(raw, LIFECYCLE_FLAGS);
  const chat = given(raw, CHAT_FLAGS);
  if (lifecycle.length > 1) throw new UsageError(`${lifecycle.join(' and ')} cannot be used together; give one at a time.`);
  if (lifecycle.length && chat.length) throw new UsageError(`${lifecycle[0]} cannot be combined with ${chat.join(' or ')}.`);
  if (raw.resume !== undefined && raw.continue) throw new UsageError('--resume and --continue cannot be used together.');
  requireCompanion(raw.includeArchived, '--include-archived', raw.listSessions || raw.search !== undefined, '--list-sessions or --search');
  requireCompanion(raw.includeChildren, '--include-children', raw.listSessions, '--list-sessions');
  requireCompanion(
    raw.json,
    '--json',
    raw.listSessions || raw.search !== undefined || raw.info !== undefined || raw.trash,
    '--list-sessions, --search, --info or --trash',
  );
  requireCompanion(raw.format, '--format', raw.export !== undefined, '--export');
  requireCompanion(raw.yes, '--yes', raw.delete !== undefined || raw.purge !== undefined, '--delete or --purge');
  requireCompanion(raw.at, '--at', raw.fork !== undefined, '--fork');
  requireCompanion(raw.hub, '--hub', raw.search !== undefined || raw.sync || raw.share !== undefined, '--search, --sync or --share');
  if (raw.doctor) return { kind: 'doctor' };
  if (raw.hubInit !== undefined) return { kind: 'hub-init', hub: hubConfig(nonEmpty(raw.hubInit, '--hub-init', 'a hub URL')) };
  if (raw.hubAddMember !== undefined) return addMemberAction(raw.hubAddMember);
  if (raw.search !== undefined && raw.hub !== undefined) return hubSearchAction(raw, env);
  if (raw.sync) return syncAction(raw, env);
  if (raw.share !== undefined) return shareAction(raw.share, raw, env);
  return lifecycle.length ? toLifecycleAction(raw) : toChatAction(raw);
}

function requireCompanion(value: unknown, flag: string, present: boolean | undefined, companion: string): void {
  if (value !== undefined && !present) throw new UsageError(`${flag} only applies to ${companion}.`);
}

function toLifecycleAction(raw: RawOptions): LifecycleAction {
  const includeArchived = raw.includeArchived ?? false;
  const json = raw.json ?? false;
  if (raw.listSessions) return { kind: 'list', includeArchived, includeChildren: raw.includeChildren ?? false, json };
  if (raw.search !== undefined) return { kind: 'search', query: nonEmpty(raw.search, '--search', 'a query'), includeArchived, json };
  if (raw.info !== undefined) return { kind: 'info', id: sessionId(raw.info, '--info'), json };
  if (raw.rename !== undefined) return renameAction(raw.rename);
  if (raw.fork !== undefined) return forkAction(raw.fork, raw.at);
  if (raw.pin !== undefined) return { kind: 'pin', id: sessionId(raw.pin, '--pin'), pinned: true };
  if (raw.unpin !== undefined) return { kind: 'pin', id: sessionId(raw.unpin, '--unpin'), pinned: false };
  if (raw.archive !== undefined) return { kind: 'archive', id: sessionId(raw.archive, '--archive'), archived: true };
  if (raw.unarchive !== undefined) return { kind: 'archive', id: sessionId(raw.unarchive, '--unarchive'), archived: false };
  if (raw.export !== undefined) return { kind: 'export', id: sessionId(raw.export, '--export'), format: raw.format ?? 'json' };
  if (raw.import !== undefined) return { kind: 'import', file: nonEmpty(raw.import, '--import', 'a file') };
  if (raw.importFrom !== undefined) return importFromAction(raw.importFrom);
  if (raw.trash) return { kind: 'trash', json };
  if (raw.restore !== undefined) return { kind: 'restore', id: sessionId(raw.restore, '--restore') };
  if (raw.purge !== undefined) return { kind: 'purge', id: sessionId(raw.purge, '--purge'), yes: raw.yes ?? false };
  return { kind: 'delete', id: sessionId(raw.delete ?? '', '--delete'), yes: raw.yes ?? false };
}

function hubSearchAction(raw: RawOptions, env: NodeJS.ProcessEnv): HubAction {
  const url = raw.hub === true ? fromEnv(env, 'LOOM_HUB') : nonEmpty(raw.hub ?? '', '--hub', 'a hub URL');
  if (url === undefined) throw new UsageError('--hub needs a hub URL (--hub postgres://user@host/database), or LOOM_HUB set to one.');
  return {
    kind: 'hub-search',
    hub: hubConfig(url),
    query: nonEmpty(raw.search ?? '', '--search', 'a query'),
    includeArchived: raw.includeArchived ?? false,
    json: raw.json ?? false,
  };
}

/** `--hub-add-member URL TEAM ROLE`. */
function addMemberAction(values: string[]): HubAction {
  const [url, team, member, ...rest] = values.map((value) => value.trim());
  if (!url || !team || !member || rest.length)
    throw new UsageError('--hub-add-member takes a hub URL, a TEAM and a ROLE, e.g. loom --hub-add-member postgres://owner@host/loom core alice.');
  return { kind: 'hub-add-member', hub: hubConfig(url), team, member };
}

function syncAction(raw: RawOptions, env: NodeJS.ProcessEnv): SyncAction {
  const hub = givenHub(raw, env);
  if (!hub) throw new UsageError('--sync needs a hub: --hub postgres://user@host/database, or LOOM_HUB set to one.');
  return { kind: 'sync', hub };
}

/** `--share ID TEAM`. */
function shareAction(values: string[], raw: RawOptions, env: NodeJS.ProcessEnv): SyncAction {
  const [id, team, ...more] = values;
  if (id === undefined || team === undefined || more.length) throw new UsageError('--share takes a session id and one team name: --share ID TEAM.');
  const hub = givenHub(raw, env);
  return { kind: 'share', id: sessionId(id, '--share'), team: nonEmpty(team, '--share', 'a team name'), ...(hub ? { hub } : {}) };
}

/** --hub URL, else --hub alone or no --hub: LOOM_HUB, if set. */
function givenHub(raw: RawOptions, env: NodeJS.ProcessEnv): HubConfig | undefined {
  const url = typeof raw.hub === 'string' ? nonEmpty(raw.hub, '--hub', 'a hub URL') : fromEnv(env, 'LOOM_HUB');
  if (url === undefined && raw.hub === true) throw new UsageError('--hub needs a hub URL (--hub postgres://user@host/database), or LOOM_HUB set to one.');
  return url === undefined ? undefined : hubConfig(url);
}

/** A hub URL Loom will not use (no TLS to a remote host, not postgres://) is a command-line mistake. */
function hubConfig(url: string): HubConfig {
  try {
    return parseHubUrl(url);
  } catch (err) {
    if (err instanceof HubUrlError) throw new UsageError(err.message);
    throw err;
  }
}

function forkAction(id: string, at: string | undefined): LifecycleAction {
  if (at === undefined) return { kind: 'fork', id: sessionId(id, '--fork') };
  if (!/^\d+$/.test(at.trim()) || Number(at) < 1) throw new UsageError(`--at needs a message number from 1 (the system message), not "${at}".`);
  return { kind: 'fork', id: sessionId(id, '--fork'), at: Number(at) };
}

/** `--import-from SOURCE [PATH]`. */
function importFromAction(values: string[]): LifecycleAction {
  const [source, given, ...more] = values;
  const known = IMPORT_SOURCES.find((name) => name === source);
  if (!known) throw new UsageError(`--import-from takes a source: ${IMPORT_SOURCES.join(', ')}; got '${source}'.`);
  if (more.length) throw new UsageError('--import-from takes one PATH (a file or a folder); quote a path with spaces.');
  return given !== undefined
    ? { kind: 'import-from', source: known, path: nonEmpty(given, '--import-from', 'a PATH') }
    : { kind: 'import-from', source: known };
}

/** `--rename ID TITLE`: the words after the id make the title, so quoting is optional. */
function renameAction(values: string[]): LifecycleAction {
  const [id, ...words] = values;
  const title = words.join(' ').trim();
  if (id === undefined || !title) throw new UsageError('--rename needs an ID and a TITLE, e.g. loom --rename 3f2a9c1e "Parser fix".');
  return { kind: 'rename', id: sessionId(id, '--rename'), title };
}

function toChatAction(raw: RawOptions): ChatAction {
  const action: ChatAction = { kind: 'chat' };
  if (raw.prompt !== undefined) action.prompt = nonEmpty(raw.prompt, '-p/--prompt', 'a prompt');
  if (raw.resume !== undefined) action.resume = sessionId(raw.resume, '--resume');
  if (raw.continue) action.continueLast = true;
  if (raw.model !== undefined) action.model = nonEmpty(raw.model, '--model', 'a model name');
  if (raw.project !== undefined) action.project = path.resolve(nonEmpty(raw.project, '--project', 'a folder'));
  if (raw.agent !== undefined) action.agent = nonEmpty(raw.agent, '--agent', 'an agent name');
  return action;
}

function sessionId(value: string, flag: string): string {
  return nonEmpty(value, flag, 'a session ID');
}

function nonEmpty(value: string, flag: string, what: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw new UsageError(`${flag} needs ${what}.`);
  return trimmed;
}

function toConfig(raw: RawOptions, env: NodeJS.ProcessEnv): LoomConfig {
  const config: LoomConfig = {
    dataDir: resolveDataDir(raw.dataDir === undefined ? undefined : nonEmpty(raw.dataDir, '--data-dir', 'a folder'), env),
    baseUrl: httpUrl(raw.baseUrl ?? fromEnv(env, 'LOOM_BASE_URL') ?? DEFAULTS.baseUrl, raw.baseUrl ? '--base-url' : 'LOOM_BASE_URL'),
    model: raw.model === undefined ? (fromEnv(env, 'LOOM_MODEL') ?? DEFAULTS.model) : nonEmpty(raw.model, '--model', 'a model name'),
    apiKey: raw.apiKey ?? fromEnv(env, 'LOOM_API_KEY') ?? fromEnv(env, 'OPENAI_API_KEY') ?? '',
    maxContextTokens: positiveInteger(raw.maxContextTokens, '--max-context-tokens', DEFAULTS.maxContextTokens),
    mode: raw.mode ?? DEFAULTS.mode,
    toolTimeoutSec: positiveInteger(raw.toolTimeout, '--tool-timeout', DEFAULTS.toolTimeoutSec),
    llmTimeoutSec: positiveInteger(raw.llmTimeout, '--llm-timeout', DEFAULTS.llmTimeoutSec),
    llmIdleTimeoutSec: positiveInteger(raw.llmIdleTimeout, '--llm-idle-timeout', DEFAULTS.llmIdleTimeoutSec),
    maxTurns: positiveInteger(raw.maxTurns, '--max-turns', DEFAULTS.maxTurns),
    maxToolCalls: positiveInteger(raw.maxToolCalls, '--max-tool-calls', DEFAULTS.maxToolCalls),
    maxCostUsd: dollars(raw.maxCostUsd, '--max-cost-usd', DEFAULTS.maxCostUsd),
    approvePlan: raw.approvePlan ?? false,
  };
  if (raw.modelWindow !== undefined) config.modelWindow = windowTokens(raw.modelWindow);
  if (raw.maxParallelSubagents !== undefined) {
    config.maxParallelSubagents = positiveInteger(raw.maxParallelSubagents, '--max-parallel-subagents', DEFAULTS.maxParallelSubagents);
  }
  if (raw.trashDays !== undefined) config.trashDays = positiveInteger(raw.trashDays, '--trash-days', DEFAULT_TRASH_DAYS);
  if (raw.noProjectInstructions) config.projectInstructions = false;
  if (raw.tools !== undefined) config.tools = toolNames(raw.tools);
  if (raw.agent !== undefined) config.agent = nonEmpty(raw.agent, '--agent', 'an agent name');
  if (raw.passEnv !== undefined) config.passEnv = envNames(raw.passEnv);
  if (raw.logDir !== undefined) config.logDir = path.resolve(nonEmpty(raw.logDir, '--log-dir', 'a folder'));
  if (raw.mcpConfig !== undefined) config.mcpConfigFile = path.resolve(nonEmpty(raw.mcpConfig, '--mcp-config', 'a file'));
  return config;
}

/** An unset or empty variable counts as absent, so `LOOM_MODEL= loom` uses the default. */
function fromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function httpUrl(value: string, source: string): string {
  const protocol = URL.canParse(value) ? new URL(value).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new UsageError(`${source} must be an http(s) URL such as ${DEFAULTS.baseUrl}, got '${value}'.`);
  }
  return value.replace(/\/+$/, '');
}

function positiveInteger(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new UsageError(`${flag} must be a positive whole number, got '${value}'.`);
  }
  return n;
}

/** A model window: at least 1,000 tokens, as the context budget. */
function windowTokens(value: string): number {
  const n = positiveInteger(value, '--model-window', 0);
  if (n < 1000) throw new UsageError(`--model-window must be at least 1000 tokens, got '${value}'.`);
  return n;
}

function dollars(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value.trim());
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(n)) {
    throw new UsageError(`${flag} must be an amount of US dollars of 0 or more, such as 2.50, got '${value}'.`);
  }
  return n;
}

/** `--pass-env A --pass-env B`: variable names, duplicates dropped. */
function envNames(names: string[]): string[] {
  const bad = names.find((name) => !ENV_VAR_NAME.test(name));
  if (bad !== undefined) throw new UsageError(`--pass-env takes an environment variable name (letters, digits and _), got '${bad}'.`);
  return [...new Set(names)];
}

/** `--tools read_file,grep`: names as given, duplicates dropped; an empty list offers no tools. */
function toolNames(value: string): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const bad = names.find((name) => !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name));
  if (bad) throw new UsageError(`--tools takes comma-separated tool names, got '${bad}'.`);
  return [...new Set(names)];
}
