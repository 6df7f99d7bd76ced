/**
 * The engine-side implementation of every bridge method: thin calls into LoomEngine (every
 * change, with its rules) and the session store (reads), shared by the Electron main
 * process and the browser mode. No session rule lives here: `loom` and a window get the
 * same answer. Inputs arrive validated by the contract's schemas.
 */
import os from 'node:os';
import path from 'node:path';
import type { AppInfo, ExportFile, ExportFormat, Handlers } from '../shared/contract';
import type { SessionMeta } from '../shared/types';
import { exportFileName } from '../shared/export-name';
import { problemLine } from '../core/agents/definition';
import type { LoomEngine } from '../core/engine';
import { LoomError } from '../core/errors';
import { importSourceList } from '../core/import/sources';
import { importReport } from '../core/import/summary';
import { listModels, testConnection } from '../core/model/model-list';
import { folderExists, projectFolder } from '../core/security/project-folder';
import type { SessionStore } from '../core/store/session-store';
import type { DownloadTickets } from './download-tickets';
import type { SettingsService } from './settings-service';
import type { SyncService } from './sync-service';

export interface HandlerDeps {
  store: SessionStore;
  engine: LoomEngine;
  settings: SettingsService;
  sync: SyncService;
  /** Fixed for the run; the secret-variable names are read from the engine on each call. */
  appInfo: Omit<AppInfo, 'secretEnvNames'>;
  /** Desktop only: drags this export out of the window as a file. */
  startDrag?: (file: ExportFile) => void;
  /** Desktop only: the operating system's folder picker (null: cancelled). */
  pickFolder?: () => Promise<string | null>;
  /** Bound on listing a server's models (default model-list.ts's); tests make it short. */
  modelListTimeoutMs?: number;
  /** Browser mode only: the single-use links its server redeems. */
  downloadTickets?: DownloadTickets;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  const { store, engine, settings, sync } = deps;
  const id = (raw: string) => store.resolveId(raw);
  const projectDirOf = (sessionId: string) => {
    const meta = store.getMeta(sessionId);
    return meta.project_dir ?? meta.cwd ?? path.sep;
  };
  /** A folder chosen in the window becomes the first of the recent ones. */
  const chosen = (meta: SessionMeta): SessionMeta => {
    if (meta.project_dir !== null) settings.rememberProject(meta.project_dir);
    return meta;
  };
  /** What "New session" uses when no folder is named: the most recent one still there. */
  const lastFolder = (): string => {
    const dir = settings.recentProjects().find(folderExists);
    if (dir === undefined) throw new LoomError('Choose a project folder for the new session first.', 'no_project');
    return dir;
  };
  const exportFile = async (raw: string, format: ExportFormat = 'json'): Promise<ExportFile> => {
    const sessionId = id(raw);
    const text = await store.exportSession(sessionId, format);
    return {
      filename: exportFileName(store.getMeta(sessionId), format),
      mimeType: MIME_TYPES[format],
      // Ends with a newline, like `loom --export` prints it: the same bytes but the time stamp.
      text: text.endsWith('\n') ? text : `${text}\n`,
    };
  };

  return {
    'app.info': () => ({ ...deps.appInfo, secretEnvNames: engine.secretEnvNames() }),

    'sessions.list': (input) => store.listPage(input),
    'sessions.projects': () => store.projects(),
    'sessions.project': (input) => engine.sessionProject(input.id),
    'sessions.setProject': async (input) => chosen(await engine.setProject(input.id, typedFolder(input.projectDir))),
    'sessions.search': (input) =>
      input.scope === 'team'
        ? // A session of mine in the Trash is still on the hub until it is purged (docs/DESIGN.md#trash): not a hit here.
          sync
            .searchTeam(input.query, { limit: input.limit ?? TEAM_SEARCH_PAGE, offset: input.offset ?? 0, includeArchived: input.includeArchived })
            .then((hits) => hits.filter((hit) => !store.isTrashed(hit.id)))
        : store.search(input.query, { includeArchived: input.includeArchived, limit: input.limit, offset: input.offset, project: input.project }),
    'sessions.find': (input) => ({ matches: store.find(input.id, input.query) }),
    'sessions.info': (input) => {
      const sessionId = id(input.id);
      return {
        ...store.getMeta(sessionId),
        compactions: store.getCompactions(sessionId),
        usage: store.getUsage(sessionId),
        model_changes: store.getModelChanges(sessionId),
        agent_changes: store.getAgentChanges(sessionId),
        child: store.childLink(sessionId),
      };
    },
    'sessions.transcript': (input) => {
      const sessionId = id(input.id);
      const total = store.getMeta(sessionId).message_count;
      const messages = store.getTranscript(sessionId, input.offset, input.limit);
      return { total, offset: input.offset, messages, facts: store.getTranscriptFacts(sessionId, input.offset, input.limit) };
    },
    'sessions.rename': (input) => engine.rename(input.id, input.title),
    'sessions.fork': (input) => engine.fork(input.id, input.at),
    'sessions.branches': (input) => engine.branches(input.id),
    'sessions.family': (input) => engine.family(input.id),
    'sessions.children': (input) =>
      store.children(id(input.id)).map((child) => {
        const { calls, prompt_tokens, completion_tokens, cost_usd } = store.getUsage(child.id);
        return { ...child, tools: store.toolsUsed(child.id), usage: { calls, prompt_tokens, completion_tokens, cost_usd } };
      }),
    'sessions.archive': (input) => engine.setArchived(input.id, true),
    'sessions.unarchive': (input) => engine.setArchived(input.id, false),
    'sessions.export': (input) => exportFile(input.id, input.format),
    'sessions.import': (input) => {
      const { meta, unlinked } = engine.importSession(input.text);
      return { meta, unlinked: unlinked.map((s) => s.id) };
    },
    'sessions.importSources': () => importSourceList(os.homedir()),
    'sessions.importFrom': async (input) => importReport(input.source, await engine.importFromFolder({ ...input, home: os.homedir() })),
    'sessions.delete': (input) => ({ deleted: engine.deleteSession(input.id) }),
    'sessions.pin': (input) => engine.setPinned(input.id, true),
    'sessions.unpin': (input) => engine.setPinned(input.id, false),
    'sessions.discard': (input) => ({ discarded: engine.discardUnstarted(input.id) }),
    'sessions.trash': () => engine.listTrash(),
    'sessions.restore': (input) => engine.restoreSession(input.id),
    'sessions.purge': (input) => ({ purged: engine.purgeSession(input.id) }),
    'sessions.share': (input) => sync.share(id(input.id), input.team),
    'sessions.setModel': (input) => engine.setSessionModel(input.id, input.model, input.window),
    'sessions.setAgent': (input) => engine.setSessionAgent(input.id, input.agent),
    'agents.list': async (input) => {
      const { agents, problems } = await engine.sessionAgents(input.id);
      return {
        agents: agents.map(({ name, description, scope, file, access }) => ({
          name,
          description,
          scope,
          ...(file ? { file } : {}),
          readOnly: access === 'readOnly',
        })),
        problems: problems.map(problemLine),
      };
    },
    'sessions.startDrag': async (input) => {
      if (!deps.startDrag) throw new LoomError('Dragging a file out of the window works in the desktop app; here, use Export.', 'unsupported');
      deps.startDrag(await exportFile(input.id));
      return { started: true };
    },
    'sessions.downloadTicket': (input) => {
      if (!deps.downloadTickets) throw new LoomError('Download links are for the browser mode; the desktop app drags the file itself.', 'unsupported');
      const sessionId = id(input.id);
      const format = input.format ?? 'json';
      const ticket = deps.downloadTickets.mint({ sessionId, format });
      return { path: `/download/${ticket}`, filename: exportFileName(store.getMeta(sessionId), format), mimeType: MIME_TYPES[format] };
    },

    'chat.create': async (input) => chosen(await engine.createSession(input.projectDir === undefined ? lastFolder() : typedFolder(input.projectDir))),
    'chat.send': (input) => engine.send(id(input.sessionId), input.text, input.attachments),
    'chat.edit': (input) => engine.edit(input.sessionId, input.index, input.text),
    'chat.regenerate': (input) => engine.regenerate(input.sessionId, input.index),
    'chat.reply': (input) => engine.reply(id(input.sessionId)),
    'chat.stop': (input) => ({ stopped: engine.stop(id(input.sessionId)) }),
    'chat.compact': (input) => engine.compact(id(input.sessionId), { focus: input.focus, upTo: input.upTo }),
    'chat.uncompact': (input) => engine.uncompact(id(input.sessionId)),
    'sessions.compactions': (input) => engine.compactionDetails(id(input.id)),
    'sessions.pins': (input) => engine.pins(id(input.id)),
    'chat.pin': (input) => engine.pin(id(input.sessionId), input.seq === undefined ? { note: input.note ?? '' } : { seq: input.seq }),
    'chat.unpin': async (input) => {
      await engine.unpin(id(input.sessionId), input.pinId);
      return { ok: true as const };
    },
    'chat.approve': (input) => {
      engine.answerApproval(input.requestId, input.answer);
      return { ok: true } as const;
    },
    'chat.answer': (input) => {
      engine.answerQuestion(input.requestId, input.answer);
      return { ok: true } as const;
    },
    'chat.context': (input) => engine.contextState(id(input.sessionId)),
    'chat.pending': (input) => engine.pendingRequests(id(input.sessionId)),
    'chat.grants': (input) => engine.grants(id(input.sessionId)),
    'chat.revokeGrant': (input) => engine.revokeGrant(id(input.sessionId), input.grantId),
    'chat.changes': async (input) => {
      const sessionId = id(input.sessionId);
      return { files: relativeTo(projectDirOf(sessionId), await engine.changedFiles(sessionId)) };
    },
    'chat.revert': async (input) => {
      const sessionId = id(input.sessionId);
      const projectDir = projectDirOf(sessionId);
      const { reverted, leftAlone } = await engine.revertChanges(sessionId);
      return {
        reverted: relativeTo(projectDir, reverted),
        leftAlone: leftAlone.map((file) => ({ path: relativeFile(projectDir, file.path), reason: file.reason })),
      };
    },

    'models.list': async (input) => ({ models: await listModels({ ...settings.serverFor(input), timeoutMs: deps.modelListTimeoutMs }) }),
    'models.test': (input) => testConnection({ ...settings.serverFor(input), timeoutMs: deps.modelListTimeoutMs }, input.model),

    'projects.recent': () => settings.recentProjects().map((dir) => ({ path: dir, exists: folderExists(dir) })),
    'projects.pick': async () => {
      if (!deps.pickFolder) throw new LoomError("The folder picker is the desktop app's; here, type the folder's path.", 'unsupported');
      return { path: await deps.pickFolder() };
    },

    'sync.status': () => sync.status(),
    'sync.now': () => sync.syncNow(),

    'settings.get': () => settings.view(),
    'settings.mcpServers': () => engine.mcpOverview(),
    'settings.mcpSave': ({ name, previous, server }) => engine.saveMcpServer(name, server, previous),
    'settings.mcpRemove': ({ name }) => engine.removeMcpServer(name),
    'settings.mcpRestart': ({ name }) => engine.restartMcpServer(name),
    'settings.set': async (input) => {
      if (input.hubUrl !== undefined) sync.check(input.hubUrl);
      const view = settings.update(input);
      engine.updateConfig(settings.engine());
      await sync.configure(settings.hubUrl());
      return view;
    },
  };
}

/** A folder as typed (`~/` is the home folder), checked and by its real path (one line when it is missing or no folder). */
function typedFolder(typed: string): string {
  return projectFolder(typed === '~' || typed.startsWith('~/') ? path.join(os.homedir(), typed.slice(1)) : typed);
}

/** Paths as the user knows them: relative to the session's project folder. */
function relativeTo(projectDir: string, files: string[]): string[] {
  return files.map((file) => relativeFile(projectDir, file));
}

function relativeFile(projectDir: string, file: string): string {
  return path.relative(projectDir, file) || file;
}

/** A team search page when the caller names no limit. */
const TEAM_SEARCH_PAGE = 50;

const MIME_TYPES: Record<ExportFormat, string> = {
  json: 'application/json',
  markdown: 'text/markdown',
  html: 'text/html',
};
