/**
 * The `loom` command line (docs/DESIGN.md#command-line): every flag, its validation, and what it asks for —
 * a LoomConfig plus one action (a lifecycle command or a chat). A usage error is a
 * UsageError with one clear sentence; the caller prints it and exits 2.
 */
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { DEFAULTS, PERMISSION_MODES, type LoomConfig, type PermissionMode } from '../core/config';
import { LoomError } from '../core/errors';
import { resolveDataDir } from '../core/paths';
import { HubUrlError, parseHubUrl, type HubConfig } from '../core/sync/hub-url';
import { IMPORT_SOURCES, type ImportSourceName } from '../shared/import-sources';
import { EXPORT_FORMATS, type ExportFormat } from '../shared/export-name';
import { ENV_VAR_NAME } from '../shared/settings';

export type LifecycleAction =
  | { kind: 'list'; includeArchived: boolean; json: boolean }
  | { kind: 'search'; query: string; includeArchived: boolean; json: boolean }
  | { kind: 'info'; id: string; json: boolean }
  | { kind: 'rename'; id: string; title: string }
  /** at: fork after the at-th transcript message (1 = the system message); all of them when absent. */
  | { kind: 'fork'; id: string; at?: number }
  | { kind: 'archive'; id: string; archived: boolean }
  | { kind: 'export'; id: string; format: ExportFormat }
  | { kind: 'import'; file: string }
  /** path: a file or folder; the source's default location when absent. */
  | { kind: 'import-from'; source: ImportSourceName; path?: string }
  | { kind: 'delete'; id: string; yes: boolean };

/** No lifecycle flag: a new session, or one resumed, interactive unless a prompt is given. */
export interface ChatAction {
  kind: 'chat';
  prompt?: string;
  resume?: string;
  continueLast?: boolean;
  /** --model given on the command line: a resumed session takes it as its own model (recorded). */
  model?: string;
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

/** A mistake in the command line: printed as one line, exit code 2. */
export class UsageError extends LoomError {
  constructor(message: string) {
    super(message, 'usage');
  }
}

/** The raw values commander collects; all strings until validated. */
interface RawOptions {
  dataDir?: string;
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  maxContextTokens?: string;
  mode?: PermissionMode;
  tools?: string;
  passEnv?: string[];
  toolTimeout?: string;
  llmTimeout?: string;
  llmIdleTimeout?: string;
  maxTurns?: string;
  maxToolCalls?: string;
  maxCostUsd?: string;
  approvePlan?: boolean;
  logDir?: string;
  mcpConfig?: string;
  prompt?: string;
  resume?: string;
  continue?: boolean;
  listSessions?: boolean;
  includeArchived?: boolean;
  json?: boolean;
  search?: string;
  info?: string;
  rename?: string[];
  fork?: string;
  at?: string;
  archive?: string;
  unarchive?: string;
  export?: string;
  format?: ExportFormat;
  import?: string;
  importFrom?: string[];
  delete?: string;
  yes?: boolean;
  doctor?: boolean;
  hubInit?: string;
  hubAddMember?: string[];
  sync?: boolean;
  share?: string[];
  /** `--hub` alone: the URL comes from LOOM_HUB. */
  hub?: string | true;
}

function createProgram(): Command {
  const program = new Command('loom')
    .description('Loom: an AI agent that works in your project folder, with durable, searchable, forkable sessions.')
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .configureHelp({ sortOptions: false });

  addModelOptions(program);
  addLimitOptions(program);
  addChatOptions(program);
  addLifecycleOptions(program);
  addHubOptions(program);
  program
    .optionsGroup('Help:')
    .version(LOOM_VERSION, '-V, --version', 'print the version and exit')
    .helpOption('-h, --help', 'show this help and exit')
    .addHelpText(
      'after',
      `
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
    );
  return program;
}

function addModelOptions(program: Command): void {
  program
    .optionsGroup('Model and data:')
    .option('--data-dir <dir>', 'data directory (overrides $LOOM_HOME)')
    .option('--base-url <url>', `OpenAI-compatible server (env LOOM_BASE_URL; default ${DEFAULTS.baseUrl})`)
    .option('--model <name>', `model name (env LOOM_MODEL; default ${DEFAULTS.model}); with --resume/--continue, that session's model from now on`)
    .option('--api-key <key>', 'API key (env LOOM_API_KEY, then OPENAI_API_KEY)')
    .option('--max-context-tokens <n>', `working-context budget in tokens (default ${DEFAULTS.maxContextTokens})`)
    .addOption(new Option('--mode <mode>', 'permission mode').choices(PERMISSION_MODES).default(DEFAULTS.mode));
}

function addLimitOptions(program: Command): void {
  program
    .optionsGroup('Limits:')
    .option('--tools <names>', 'comma-separated tool names offered to the model (default: all)')
    .option(
      '--pass-env <name>',
      'also give tools this environment variable (repeatable; default: PATH, HOME, LANG, LC_*, TERM, TZ, USER, SHELL, TMPDIR only)',
      (name: string, names: string[] = []) => [...names, name],
    )
    .option('--tool-timeout <sec>', `seconds one tool call may take (default ${DEFAULTS.toolTimeoutSec})`)
    .option('--llm-timeout <sec>', `seconds one model request may take in all, reply included (default ${DEFAULTS.llmTimeoutSec})`)
    .option('--llm-idle-timeout <sec>', `seconds the model server may stay silent (default ${DEFAULTS.llmIdleTimeoutSec})`)
    .option('--max-turns <n>', `model requests per user message (default ${DEFAULTS.maxTurns})`)
    .option('--max-tool-calls <n>', `tool calls per session run (default ${DEFAULTS.maxToolCalls})`)
    .option('--max-cost-usd <usd>', `spending limit per session run in US dollars (default ${DEFAULTS.maxCostUsd.toFixed(2)})`)
    .option('--approve-plan', 'ask for approval of the plan before working on it')
    .option('--log-dir <dir>', 'audit log folder (default <data dir>/audit)')
    .option('--mcp-config <file>', 'MCP servers whose tools a chat offers, in the mcp.json shape (default <data dir>/mcp.json)');
}

function addChatOptions(program: Command): void {
  program
    .optionsGroup('Chat (default: a new interactive session):')
    .option('-p, --prompt <text>', 'run one non-interactive turn, print the answer, save the session')
    .option('--resume <id>', 'resume a session')
    .option('--continue', 'resume the most recently updated unarchived session');
}

function addLifecycleOptions(program: Command): void {
  program
    .optionsGroup('Sessions (one at a time; ID = any unique prefix):')
    .option('--list-sessions', 'list sessions, newest first')
    .option('--include-archived', 'include archived sessions in --list-sessions / --search')
    .option('--json', 'machine-readable output for --list-sessions, --search and --info')
    .option('--search <query>', 'full-text search of titles, summaries and transcripts')
    .option('--info <id>', "show a session's details and usage")
    .option('--rename <id> <title...>', "set a session's title")
    .option('--fork <id>', 'start a new session from this one, sharing its history; prints the new id')
    .option('--at <n>', 'with --fork: share only the first N transcript messages (as --export lists them)')
    .option('--archive <id>', 'archive a session (hidden from lists and search)')
    .option('--unarchive <id>', 'unarchive a session')
    .option('--export <id>', 'print a session to stdout, as JSON unless --format says otherwise')
    .addOption(new Option('--format <format>', 'export format').choices(EXPORT_FORMATS))
    .option('--import <file>', "import an exported session as a new one ('-' reads stdin); prints its id")
    .option(
      '--import-from <source> [path...]',
      `import sessions from another agent (${IMPORT_SOURCES.join(', ')}), from PATH or its default location; importing again adds only what is new`,
    )
    .option('--delete <id>', 'delete a session (needs --yes)')
    .option('--yes', 'confirm --delete')
    .option('--doctor', 'check loom.db for damage; if damaged, salvage what can be read into a new file');
}

function addHubOptions(program: Command): void {
  program
    .optionsGroup('Sync and teams (a PostgreSQL hub; URL = postgres://user@host/database):')
    .option('--hub-init <url>', "create or upgrade the hub's schema, as the hub's owner role")
    .option('--hub-add-member <url> <team> <role...>', "as the hub's owner: put a Loom user (a role) in a team, which then reads the sessions shared with it")
    .option('--hub [url]', 'with --search: search the sessions you may read on the hub (URL, else $LOOM_HUB)')
    .option('--sync', 'sync with the hub (--hub URL, else $LOOM_HUB) once: push what changed here, pull what changed elsewhere')
    .option('--share <id> <team...>', 'share a session with a team on the hub (at once with --hub or $LOOM_HUB, else at the next sync)');
}

/** Parses `argv` (the arguments after the command name). Throws UsageError on any mistake. */
export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv = process.env): ParseOutcome {
  const program = createProgram();
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return { kind: 'exit', code: 0 };
      throw new UsageError(err.message.replace(/^error:\s*/, ''));
    }
    throw err;
  }
  const raw = program.opts<RawOptions>();
  return { kind: 'run', action: toAction(raw, env), config: toConfig(raw, env) };
}

const LIFECYCLE_FLAGS: Array<[keyof RawOptions, string]> = [
  ['listSessions', '--list-sessions'],
  ['search', '--search'],
  ['info', '--info'],
  ['rename', '--rename'],
  ['fork', '--fork'],
  ['archive', '--archive'],
  ['unarchive', '--unarchive'],
  ['export', '--export'],
  ['import', '--import'],
  ['importFrom', '--import-from'],
  ['delete', '--delete'],
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
  requireCompanion(raw.json, '--json', raw.listSessions || raw.search !== undefined || raw.info !== undefined, '--list-sessions, --search or --info');
  requireCompanion(raw.format, '--format', raw.export !== undefined, '--export');
  requireCompanion(raw.yes, '--yes', raw.delete !== undefined, '--delete');
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
  if (raw.listSessions) return { kind: 'list', includeArchived, json };
  if (raw.search !== undefined) return { kind: 'search', query: nonEmpty(raw.search, '--search', 'a query'), includeArchived, json };
  if (raw.info !== undefined) return { kind: 'info', id: sessionId(raw.info, '--info'), json };
  if (raw.rename !== undefined) return renameAction(raw.rename);
  if (raw.fork !== undefined) return forkAction(raw.fork, raw.at);
  if (raw.archive !== undefined) return { kind: 'archive', id: sessionId(raw.archive, '--archive'), archived: true };
  if (raw.unarchive !== undefined) return { kind: 'archive', id: sessionId(raw.unarchive, '--unarchive'), archived: false };
  if (raw.export !== undefined) return { kind: 'export', id: sessionId(raw.export, '--export'), format: raw.format ?? 'json' };
  if (raw.import !== undefined) return { kind: 'import', file: nonEmpty(raw.import, '--import', 'a file') };
  if (raw.importFrom !== undefined) return importFromAction(raw.importFrom);
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
  const [id, ...teams] = values;
  if (teams.length !== 1) throw new UsageError('--share takes a session id and one team name: --share ID TEAM.');
  const hub = givenHub(raw, env);
  return { kind: 'share', id: sessionId(id, '--share'), team: nonEmpty(teams[0], '--share', 'a team name'), ...(hub ? { hub } : {}) };
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
  const [source, ...paths] = values;
  const known = IMPORT_SOURCES.find((name) => name === source);
  if (!known) throw new UsageError(`--import-from takes a source: ${IMPORT_SOURCES.join(', ')}; got '${source}'.`);
  if (paths.length > 1) throw new UsageError('--import-from takes one PATH (a file or a folder); quote a path with spaces.');
  return paths.length ? { kind: 'import-from', source: known, path: nonEmpty(paths[0], '--import-from', 'a PATH') } : { kind: 'import-from', source: known };
}

/** `--rename ID TITLE`: the words after the id make the title, so quoting is optional. */
function renameAction(values: string[]): LifecycleAction {
  const [id, ...words] = values;
  const title = words.join(' ').trim();
  if (!title) throw new UsageError('--rename needs an ID and a TITLE, e.g. loom --rename 3f2a9c1e "Parser fix".');
  return { kind: 'rename', id: sessionId(id, '--rename'), title };
}

function toChatAction(raw: RawOptions): ChatAction {
  const action: ChatAction = { kind: 'chat' };
  if (raw.prompt !== undefined) action.prompt = nonEmpty(raw.prompt, '-p/--prompt', 'a prompt');
  if (raw.resume !== undefined) action.resume = sessionId(raw.resume, '--resume');
  if (raw.continue) action.continueLast = true;
  if (raw.model !== undefined) action.model = nonEmpty(raw.model, '--model', 'a model name');
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
  if (raw.tools !== undefined) config.tools = toolNames(raw.tools);
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
