/**
 * The browser mode: one backend served by the loopback bridge server, with the settings
 * in <dataDir>/settings.json. `npm run web` and the tests start it through here.
 */
import { resolveDataDir } from '../core/paths';
import { openBackend, type Backend } from '../backend/backend';
import { startBridgeServer, type BridgeServer, type ReceiveLimits } from './http-server';
import type { EngineSettings } from '../backend/settings-service';
import type { SyncTiming } from '../backend/sync-service';
import { JsonFileSettingsStore } from '../backend/settings-store';

export interface BrowserModeOptions {
  /** Default: LOOM_HOME, else the desktop app's data folder. */
  dataDir?: string;
  /** The built renderer (out/renderer). */
  staticDir: string | null;
  port?: number;
  projectDir?: string;
  overrides?: Partial<EngineSettings>;
  env?: NodeJS.ProcessEnv;
  token?: string;
  /** Shorter receive limits (tests). */
  limits?: Partial<ReceiveLimits>;
  /** Shorter background-sync pauses (tests). */
  syncTiming?: Partial<SyncTiming>;
}

export interface BrowserMode {
  readonly server: BridgeServer;
  readonly backend: Backend;
  readonly url: string;
  /** Stops serving, then closes the backend; calling it again returns the same promise. */
  close(): Promise<void>;
}

export async function startBrowserMode(options: BrowserModeOptions): Promise<BrowserMode> {
  const env = options.env ?? process.env;
  const dataDir = resolveDataDir(options.dataDir, env);
  const backend = openBackend({
    dataDir,
    settingsStore: new JsonFileSettingsStore(dataDir),
    shell: 'browser',
    projectDir: options.projectDir,
    env,
    overrides: options.overrides,
    syncTiming: options.syncTiming,
  });
  let server: BridgeServer;
  try {
    // The first window's sessions are offered the MCP servers' tools (each server's start is bounded).
    await backend.mcpStarted;
    server = await startBridgeServer({
      handlers: backend.handlers,
      subscribe: (listener) => backend.subscribe(listener),
      redeemTicket: (ticket) => backend.downloadTickets?.redeem(ticket) ?? null,
      staticDir: options.staticDir,
      port: options.port,
      token: options.token,
      limits: options.limits,
    });
  } catch (err) {
    await backend.close();
    throw err;
  }
  let closing: Promise<void> | null = null;
  return {
    server,
    backend,
    url: server.url,
    close() {
      closing ??= server.close().finally(() => backend.close());
      return closing;
    },
  };
}
