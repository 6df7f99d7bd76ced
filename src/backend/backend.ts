/**
 * One Loom backend: the session store, the engine and the bridge handlers over them, plus
 * the event hub every window listens to. The Electron main process and the browser mode
 * each open exactly one.
 */
import type { BridgeEvent, Handlers } from '../shared/contract';
import type { EngineEvent } from '../shared/engine-events';
import type { SessionMeta } from '../shared/types';
import { DEFAULTS, type LoomConfig } from '../core/config';
import { isLoomError } from '../core/errors';
import { LoomEngine } from '../core/engine';
import { ensurePrivateDir } from '../core/paths';
import { projectFolder } from '../core/security/project-folder';
import { SessionStore } from '../core/store/session-store';
import { appVersion } from './app-version';
import { CallsInFlight } from './calls-in-flight';
import { DownloadTickets } from './download-tickets';
import { createHandlers, type HandlerDeps } from './handlers';
import { openHubSync } from './hub-sync';
import { SettingsService, type EngineSettings } from './settings-service';
import type { SettingsStore } from './settings-store';
import { DEFAULT_SYNC_TIMING, SyncService, type SyncTiming } from './sync-service';

export interface BackendOptions {
  dataDir: string;
  settingsStore: SettingsStore;
  shell: 'desktop' | 'browser';
  electronVersion?: string | null;
  /**
   * The folder `--project` named: new sessions' first choice, and where a session with no
   * folder chosen (an import) works. Without it the window asks; never the current directory.
   */
  projectDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Values that win over saved settings for this run (command-line flags, tests). */
  overrides?: Partial<EngineSettings>;
  startDrag?: HandlerDeps['startDrag'];
  pickFolder?: HandlerDeps['pickFolder'];
  /** Opens the store (the desktop app passes the Electron build of better-sqlite3). */
  openStore?: (dataDir: string) => SessionStore;
  /** Shorter pauses for the background sync (tests). */
  syncTiming?: Partial<SyncTiming>;
}

export interface Backend {
  readonly handlers: Handlers;
  readonly store: SessionStore;
  readonly engine: LoomEngine;
  readonly sync: SyncService;
  /** The browser mode's drag-export links (null in the desktop app, which drags files itself). */
  readonly downloadTickets: DownloadTickets | null;
  /** Resolves once the MCP servers of mcp.json have started or failed (never rejects): sessions opened after it are offered their tools. */
  readonly mcpStarted: Promise<void>;
  /** The engine's events and the sync's status (the desktop app adds its own before they reach a window). */
  subscribe(listener: (event: BridgeEvent) => void): () => void;
  /**
   * Ends work on every session (releasing leases), lets the calls in flight finish, then
   * closes the database. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/** A stopped turn ends within moments; a tool that ignores the stop is not waited for longer. */
const CLOSE_WAIT_MS = 10_000;

export function openBackend(options: BackendOptions): Backend {
  ensurePrivateDir(options.dataDir);
  const settings = new SettingsService(options.settingsStore, options.env ?? process.env, options.overrides);
  // Checked before anything opens: a --project that is no folder is one line at start.
  const projectDir = options.projectDir === undefined ? undefined : projectFolder(options.projectDir);
  if (projectDir !== undefined) settings.rememberProject(projectDir);
  const openStore = options.openStore ?? ((dataDir: string) => SessionStore.open(dataDir));
  const store = openStore(options.dataDir);
  const engine = new LoomEngine({ config: engineConfig(options.dataDir, settings.engine()), store, projectDir, owner: `loom-${options.shell}` });
  // Windows hear of what the `loom` command and other windows' processes change, within a second.
  const stopWatching = engine.watchOtherProcesses();
  const mcpStarted = engine.startMcpServers(appVersion()).then(() => undefined);
  const sync = new SyncService(
    openHubSync(options.dataDir, openStore, (id) => engine.isBusy(id)),
    settings.hubUrl(),
    (id) => findMeta(store, id),
    {
      ...DEFAULT_SYNC_TIMING,
      ...options.syncTiming,
    },
  );
  // Whatever changes the store, here or in another process, is pushed soon (pulled changes queue nothing).
  const stopHearing = engine.on((event) => LOCAL_CHANGES.has(event.type) && sync.localChange());
  sync.start();
  const calls = new CallsInFlight();
  const downloadTickets = options.shell === 'browser' ? new DownloadTickets() : null;
  const handlers = createHandlers({
    store,
    engine,
    settings,
    sync,
    startDrag: options.startDrag,
    pickFolder: options.pickFolder,
    downloadTickets: downloadTickets ?? undefined,
    appInfo: {
      name: 'Loom',
      version: appVersion(),
      shell: options.shell,
      electronVersion: options.electronVersion ?? null,
      dataDir: options.dataDir,
      startProject: projectDir ?? null,
      platform: process.platform,
    },
  });
  let closing: Promise<void> | null = null;
  const shutDown = async () => {
    const drained = calls.drain(CLOSE_WAIT_MS); // refuses new calls from here on
    stopWatching();
    stopHearing();
    try {
      engine.close();
      // Servers still starting are stopped once started (mcpStarted covers that), the others now.
      await Promise.all([drained, mcpStarted, engine.mcpServersClosed(), sync.close()]);
    } finally {
      store.close();
    }
  };
  return {
    handlers: calls.wrap(handlers),
    store,
    engine,
    sync,
    downloadTickets,
    mcpStarted,
    // Each window listens to the engine itself, so one failing window cannot starve the others.
    subscribe: (listener) => {
      const offEngine = engine.on(listener);
      const offSync = sync.onStatus((status) => listener({ type: 'sync_status', status }));
      return () => {
        offEngine();
        offSync();
      };
    },
    close() {
      closing ??= shutDown();
      return closing;
    },
  };
}

const LOCAL_CHANGES = new Set<EngineEvent['type']>(['message', 'session_changed', 'session_deleted']);

/** The session's metadata, or null when it is not in the store. */
function findMeta(store: SessionStore, id: string): SessionMeta | null {
  try {
    return store.getMeta(id);
  } catch (err) {
    if (isLoomError(err) && err.code === 'unknown_session') return null;
    throw err;
  }
}

function engineConfig(dataDir: string, settings: EngineSettings): LoomConfig {
  return {
    dataDir,
    ...settings,
    toolTimeoutSec: DEFAULTS.toolTimeoutSec,
    llmTimeoutSec: DEFAULTS.llmTimeoutSec,
    llmIdleTimeoutSec: DEFAULTS.llmIdleTimeoutSec,
    maxTurns: DEFAULTS.maxTurns,
    maxToolCalls: DEFAULTS.maxToolCalls,
    maxCostUsd: DEFAULTS.maxCostUsd,
    approvePlan: false,
  };
}
