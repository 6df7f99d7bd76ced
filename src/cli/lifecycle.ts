/**
 * The `loom` lifecycle commands (docs/DESIGN.md#command-line) that need no model: list, search, info,
 * rename, fork, pin/unpin, archive/unarchive, export, import, delete and the Trash (list, restore, purge). Each one opens the store,
 * does one thing, and returns what to print; refusals are LoomErrors (exit 1). Changes go
 * through the engine's lifecycle (SessionLifecycle, which LoomEngine extends), so they obey
 * the same rules as in a window (a session another process works in is not renamed,
 * archived nor deleted: docs/DESIGN.md#who-may-change-a-session).
 */
import fs from 'node:fs';
import os from 'node:os';
import type { LoomConfig } from '../core/config';
import { counted } from '../core/counted';
import type { LoomEngine } from '../core/engine';
import { DEFAULT_AGENT } from '../core/agents/built-in';
import { SessionLifecycle } from '../core/session-lifecycle';
import { LoomError, errorMessage } from '../core/errors';
import { SessionStore } from '../core/store/session-store';
import { CALL_KINDS, type SearchHit, type SessionMeta, type SessionUsage, type UsageTotals } from '../shared/types';
import { unlinkedNote } from '../shared/subagents';
import { formatCost, formatCount, localTime, oneLine, relativeTime, renderTable, truncate, uniquePrefixes, type Column } from './format';
import type { ImportRequest, ImportSummary } from '../core/import/run';
import { summaryLine } from '../core/import/summary';
import { progressReporter, refusalLines } from './import-report';
import type { LifecycleAction } from './options';
import { terminalWidth, writeError, writeOut } from './output';

/** Runs one lifecycle command; returns the exit code. Errors propagate to the caller. */
export async function runLifecycle(action: LifecycleAction, config: LoomConfig): Promise<number> {
  // Read the import before touching the store, so a bad file leaves no trace at all.
  const importText = action.kind === 'import' ? await readImportFile(action.file) : '';
  // Likewise the --import-from location and its files.
  const importing =
    action.kind === 'import-from'
      ? await (await import('../core/import/run')).importFiles({ source: action.source, path: action.path, home: os.homedir() })
      : undefined;
  // Only the imports load the whole engine (an export's schema, the importers); the other
  // changes need its lifecycle rules alone, and reading needs the store alone: each starts
  // faster without the rest (docs/ARCHITECTURE.md#the-node-build).
  const Engine = isImporting(action) ? (await import('../core/engine')).LoomEngine : undefined;
  const store = SessionStore.open(config.dataDir);
  let text: string;
  try {
    if (isReading(action)) text = await read(store, action);
    else if (isImporting(action)) text = await importInto(new Engine!({ config, store }), action, importText, importing);
    else text = change(new SessionLifecycle({ store, trashDays: config.trashDays }), action);
  } finally {
    store.close();
  }
  if (text) await writeOut(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}

type ReadingAction = Extract<LifecycleAction, { kind: 'list' | 'search' | 'info' | 'export' }>;

function isReading(action: LifecycleAction): action is ReadingAction {
  return action.kind === 'list' || action.kind === 'search' || action.kind === 'info' || action.kind === 'export';
}

type ImportingAction = Extract<LifecycleAction, { kind: 'import' | 'import-from' }>;

function isImporting(action: LifecycleAction): action is ImportingAction {
  return action.kind === 'import' || action.kind === 'import-from';
}

async function read(store: SessionStore, action: ReadingAction): Promise<string> {
  switch (action.kind) {
    case 'list':
      return listSessions(store, action.includeArchived, action.includeChildren, action.json);
    case 'search':
      return searchSessions(store, action.query, action.includeArchived, action.json);
    case 'info':
      return sessionInfo(store, store.resolveId(action.id), action.json);
    case 'export':
      return store.exportSession(store.resolveId(action.id), action.format);
  }
}

function change(lifecycle: SessionLifecycle, action: Exclude<LifecycleAction, ReadingAction | ImportingAction>): string {
  switch (action.kind) {
    case 'rename':
      return `Renamed session ${lifecycle.rename(action.id, action.title).id} to "${action.title}".`;
    case 'fork':
      return lifecycle.fork(action.id, action.at).id;
    case 'pin':
      return `${action.pinned ? 'Pinned' : 'Unpinned'} session ${lifecycle.setPinned(action.id, action.pinned).id}.`;
    case 'archive':
      return `${action.archived ? 'Archived' : 'Unarchived'} session ${lifecycle.setArchived(action.id, action.archived).id}.`;
    case 'delete':
      return deleteSession(lifecycle, action.id, action.yes);
    case 'trash':
      return trashList(lifecycle, action.json);
    case 'restore':
      return `Restored session ${lifecycle.restoreSession(action.id).id}.`;
    case 'purge':
      return purgeSession(lifecycle, action.id, action.yes);
  }
}

async function importInto(engine: LoomEngine, action: ImportingAction, importText: string, importing: ImportRequest | undefined): Promise<string> {
  if (action.kind === 'import') return importSession(engine, importText);
  return importing ? importFrom(engine, importing) : '';
}

/** The new id on stdout (scripts read it); a repair of the import, if any, on stderr. */
function importSession(engine: LoomEngine, text: string): string {
  const { meta, closedCalls, unlinked } = engine.importSession(text);
  if (unlinked.length)
    writeError(
      unlinkedNote(
        meta.id,
        unlinked.map((s) => s.id),
      ),
    );
  if (closedCalls) {
    writeError(
      `Imported session ${meta.id}: closed ${counted(closedCalls, 'tool call')} that had no result in the export with a result saying so (nothing was run).`,
    );
  }
  return meta.id;
}

/** Progress and refusals on stderr, the one-line summary on stdout. */
async function importFrom(engine: LoomEngine, request: ImportRequest): Promise<string> {
  const progress = progressReporter(process.stderr);
  let summary: ImportSummary;
  try {
    summary = await engine.importFrom({ ...request, onProgress: progress });
  } finally {
    progress.finish();
  }
  for (const line of refusalLines(summary)) process.stderr.write(`${line}\n`);
  return summaryLine(request.source, summary);
}

function deleteSession(lifecycle: SessionLifecycle, idOrPrefix: string, yes: boolean): string {
  const id = lifecycle.store.resolveId(idOrPrefix);
  // Its sub-agents go with it (docs/DESIGN.md#sub-agents): the confirmation names them.
  // Its own only: a fork's inherited children belong to the session they were started in.
  const children = lifecycle.store
    .children(id)
    .filter((c) => c.child.parent_id === id)
    .map((c) => c.id);
  const withChildren = children.length ? ` and its ${counted(children.length, 'sub-agent session')} (${children.join(', ')})` : '';
  if (!yes) throw new LoomError(`Refusing to delete session ${id}${withChildren} without --yes; nothing was deleted. Add --yes to confirm.`);
  lifecycle.deleteSession(id);
  return `Deleted session ${id}${withChildren}; it stays in the Trash for ${counted(lifecycle.trashDays, 'day')} (loom --restore ${idOrPrefix} brings it back).`;
}

function purgeSession(lifecycle: SessionLifecycle, idOrPrefix: string, yes: boolean): string {
  const id = lifecycle.store.resolveTrashedId(idOrPrefix);
  if (!yes) throw new LoomError(`Refusing to purge session ${id} without --yes; nothing was purged. Add --yes to confirm.`);
  return `Purged session ${lifecycle.purgeSession(id)}.`;
}

const TRASH_COLUMNS: Column[] = [{ header: 'ID' }, { header: 'TITLE', flex: true }, { header: 'DELETED' }, { header: 'PURGED' }];

/** `loom --trash`: most recently deleted first; it goes through the lifecycle, so what is past its days is purged first. */
function trashList(lifecycle: SessionLifecycle, json: boolean): string {
  const trashed = lifecycle.listTrash();
  if (json) return toJson(trashed.map((s) => ({ ...listEntry(s), deleted_at: s.deleted_at, purge_at: s.purge_at })));
  if (!trashed.length) return 'The Trash is empty.';
  const now = new Date();
  const rows = trashed.map((s) => [s.id, displayTitle(s), relativeTime(s.deleted_at, now), localTime(s.purge_at)]);
  return renderTable(TRASH_COLUMNS, rows, terminalWidth()).join('\n');
}

async function readImportFile(file: string): Promise<string> {
  if (file === '-') return readStdin();
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : errorMessage(err);
    throw new LoomError(`Cannot import ${file}: ${reason}.`);
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new LoomError('--import - reads an export from stdin; pipe one in, e.g. loom --export ID | loom --import -.');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// ---- list and search ------------------------------------------------------------------

/** The stable `--json` shape of a listed session (docs/DESIGN.md#json-output). */
function listEntry(meta: SessionMeta) {
  return {
    id: meta.id,
    parent_id: meta.parent_id,
    title: meta.title,
    summary: meta.summary,
    status: meta.status,
    archived: meta.archived,
    created_at: meta.created_at,
    updated_at: meta.updated_at,
    message_count: meta.message_count,
  };
}

function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function listSessions(store: SessionStore, includeArchived: boolean, includeChildren: boolean, json: boolean): string {
  // The short ids must tell apart every session (archived ones and sub-agents' too).
  const all = store.list({ includeArchived: true, includeChildren: true });
  const sessions = pinnedFirst(store.list({ includeArchived, includeChildren }));
  if (json) return toJson(sessions.map(listEntry));
  if (!sessions.length) return all.length ? 'No sessions; archived ones show with --include-archived.' : 'No sessions yet.';
  return sessionTable(sessions, all).join('\n');
}

/** As the sidebar lists them: the pinned sessions first, each part newest first. */
function pinnedFirst(sessions: SessionMeta[]): SessionMeta[] {
  return [...sessions.filter((s) => s.pinned), ...sessions.filter((s) => !s.pinned)];
}

function searchSessions(store: SessionStore, query: string, includeArchived: boolean, json: boolean): string {
  const hits = store.search(query, { includeArchived });
  if (json) return toJson(hits.map((hit) => ({ ...listEntry(hit), snippet: hit.snippet })));
  if (!hits.length) return `No sessions match "${query}".`;
  const [header, ...rows] = sessionTable(hits, store.list({ includeArchived: true, includeChildren: true }));
  const width = terminalWidth();
  const snippet = (hit: SearchHit) => {
    const text = `    ${oneLine(hit.snippet)}`;
    return width === undefined ? text : truncate(text, width);
  };
  return [
    header,
    ...rows.flatMap((row, i) => {
      const hit = hits[i]; // the table has a row for each hit
      return hit ? [row, snippet(hit)] : [row];
    }),
  ].join('\n');
}

const SESSION_COLUMNS: Column[] = [{ header: 'ID' }, { header: 'TITLE', flex: true }, { header: 'UPDATED' }, { header: 'MESSAGES', align: 'right' }];

/**
 * Header + one line per session: a short id (unambiguous among `all`, every stored
 * session), title (else summary), age, size.
 */
function sessionTable(sessions: SessionMeta[], all: SessionMeta[]): [string, ...string[]] {
  const short = uniquePrefixes(
    sessions.map((s) => s.id),
    all.map((s) => s.id),
  );
  const now = new Date();
  const rows = sessions.map((s) => [short.get(s.id)!, displayTitle(s), relativeTime(s.updated_at, now), formatCount(s.message_count)]);
  return renderTable(SESSION_COLUMNS, rows, terminalWidth());
}

function displayTitle(s: SessionMeta): string {
  const name = s.title?.trim() || s.summary?.trim() || '(untitled)';
  const marked = s.pinned ? `[pinned] ${name}` : name;
  return s.archived ? `[archived] ${marked}` : marked;
}

// ---- info -----------------------------------------------------------------------------

/** `loom --info` (and the REPL's \info, on the store the chat already has open). */
export function sessionInfo(store: SessionStore, id: string, json: boolean): string {
  const meta = store.getMeta(id);
  const compactions = store.getCompactions(id).length;
  const { own: usage, children: childUsage, total } = store.getFamilyUsage(id);
  const children = store.children(id);
  const link = store.childLink(id);
  const modelChanges = store.getModelChanges(id);
  const agentChanges = store.getAgentChanges(id);
  const agent = meta.agent ?? DEFAULT_AGENT;
  if (json) {
    return toJson({
      id: meta.id,
      parent_id: meta.parent_id,
      title: meta.title,
      status: meta.status,
      archived: meta.archived,
      transcript_messages: meta.message_count,
      compactions,
      usage: usageJson(usage),
      model: meta.model,
      model_changes: modelChanges,
      agent,
      agent_changes: agentChanges,
      // Sub-agents (docs/DESIGN.md#sub-agents): the session that started this one, its own children, their usage and the sum.
      subagent_of: link && { parent_id: link.parent_id, call_id: link.call_id, agent: link.agent, state: link.state },
      children: children.map((c) => ({ id: c.id, title: c.title, agent: c.child.agent, state: c.child.state, call_id: c.child.call_id })),
      children_usage: usageJson(childUsage),
      total_usage: usageJson(total),
    });
  }
  const contextMessages = store.getContext(id).length;
  const fields: Array<[string, string]> = [
    ['ID', meta.id],
    ['Title', meta.title ?? '(none)'],
    ['Summary', meta.summary ? oneLine(meta.summary) : '(none yet)'],
    ['Parent', meta.parent_id ?? '(none)'],
    ['Status', meta.status],
    ['Archived', meta.archived ? 'yes' : 'no'],
    ['Created', localTime(meta.created_at)],
    ['Updated', `${localTime(meta.updated_at)} (${relativeTime(meta.updated_at)})`],
    ['Model', meta.model ?? '(unknown)'],
    ['Agent', agent],
    ['Folder', meta.cwd ?? '(unknown)'],
    ['Transcript', `${formatCount(meta.message_count)} messages`],
    ['Context', `${formatCount(contextMessages)} messages`],
    ['Compactions', formatCount(compactions)],
  ];
  const label = Math.max(...fields.map(([name]) => name.length)) + 2;
  const lines = fields.map(([name, value]) => `${`${name}:`.padEnd(label)}${value}`);
  const changeLines = (changes: readonly { at: string; from: string | null; to: string; transcript_index: number }[], none: string) =>
    changes.map((c) => `  ${localTime(c.at)}  ${c.from ?? none} -> ${c.to} (from message ${formatCount(c.transcript_index + 1)})`);
  const models = changeLines(modelChanges, '(none)');
  const agents = changeLines(agentChanges, DEFAULT_AGENT);
  return [
    ...lines,
    ...(models.length ? ['', 'Model changes:', ...models] : []),
    ...(agents.length ? ['', 'Agent changes:', ...agents] : []),
    ...(link ? ['', `Sub-agent of ${link.parent_id} (${link.agent}, ${link.state})`] : []),
    ...(children.length ? ['', 'Sub-agents:', ...children.map((c) => `  ${c.id}  ${c.child.agent}  ${c.child.state}  ${displayTitle(c)}`)] : []),
    '',
    'Usage:',
    ...usageTable(usage),
    ...(children.length ? ['', "Sub-agents' usage:", ...usageTable(childUsage), '', 'Total with sub-agents:', ...usageTable(total)] : []),
  ].join('\n');
}

function usageJson(usage: SessionUsage) {
  return {
    calls: usage.calls,
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    cost_usd: usage.cost_usd,
    by_kind: usage.by_kind,
  };
}

/** One row per call kind (the store reports every kind, zero when unused), then the total. */
function usageTable(usage: SessionUsage): string[] {
  const columns: Column[] = [
    { header: 'KIND' },
    { header: 'CALLS', align: 'right' },
    { header: 'PROMPT TOKENS', align: 'right' },
    { header: 'COMPLETION TOKENS', align: 'right' },
    { header: 'EST. COST', align: 'right' },
  ];
  const row = (name: string, u: UsageTotals) => [
    name,
    formatCount(u.calls),
    formatCount(u.prompt_tokens),
    formatCount(u.completion_tokens),
    formatCost(u.cost_usd),
  ];
  const rows = CALL_KINDS.map((kind) => row(kind, usage.by_kind[kind]));
  return renderTable(columns, [...rows, row('total', usage)]).map((line) => `  ${line}`);
}
