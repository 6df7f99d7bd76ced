/**
 * A real backend (store, engine, handlers) in a fresh temp folder for each test, its model
 * a scripted loopback server, driven through the dispatcher both transports use.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { BridgeResult, MethodName } from '../../src/shared/contract';
import { openBackend, type Backend, type BackendOptions } from '../../src/backend/backend';
import { dispatch } from '../../src/backend/dispatch';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-server';

export interface ModelBackend {
  projectDir: string;
  model: ScriptedServer;
  backend: Backend;
  /** Calls a bridge method; throws with the method's one-line error when it fails. */
  call<T>(method: MethodName, input: unknown): Promise<T>;
}

export function useModelBackend(overrides: BackendOptions['overrides'] = {}): ModelBackend {
  let root = '';
  const ctx = {
    async call<T>(method: MethodName, input: unknown): Promise<T> {
      const result = (await dispatch(ctx.backend.handlers, method, input)) as BridgeResult<T>;
      if (!result.ok) throw new Error(`${method}: ${result.error.message}`);
      return result.value;
    },
  } as ModelBackend;

  beforeEach(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bridge-')));
    ctx.projectDir = path.join(root, 'project');
    fs.mkdirSync(ctx.projectDir);
    ctx.model = await startScriptedServer();
    const dataDir = path.join(root, 'data');
    ctx.backend = openBackend({
      dataDir,
      settingsStore: new JsonFileSettingsStore(dataDir),
      shell: 'browser',
      projectDir: ctx.projectDir,
      env: {},
      overrides: { baseUrl: ctx.model.baseUrl, model: 'gemma4', apiKey: '', ...overrides },
    });
  });

  afterEach(async () => {
    await ctx.backend.close();
    await ctx.model.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  return ctx;
}
