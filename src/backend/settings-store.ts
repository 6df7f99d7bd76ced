/**
 * Where the settings dialog's values live. The desktop app keeps them in electron-store
 * with the API key encrypted by safeStorage (src/main/adapters); the browser mode keeps
 * them in <dataDir>/settings.json, readable by the owner only (0600).
 * Every field is optional: a missing one falls back to the environment, then the defaults.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PERMISSION_MODES, THEMES } from '../shared/settings';
import { ensurePrivateDir } from '../core/paths';

export const storedSettingsSchema = z.object({
  baseUrl: z.string().optional(),
  model: z.string().optional(),
  apiKey: z.string().optional(),
  maxContextTokens: z.int().positive().optional(),
  /** null: learnt (docs/DESIGN.md#the-models-window). */
  modelWindow: z.int().positive().nullable().optional(),
  mode: z.enum(PERMISSION_MODES).optional(),
  theme: z.enum(THEMES).optional(),
  openTabs: z.array(z.string()).optional(),
  activeTab: z.string().nullable().optional(),
  passEnv: z.array(z.string()).optional(),
  /** Days a deleted session stays in the Trash (docs/DESIGN.md#trash). */
  trashDays: z.int().positive().optional(),
  /** The sync hub's URL, password included (the desktop app encrypts it then). */
  hubUrl: z.string().optional(),
  /** Project folders chosen, most recent first (settings-service.ts bounds the list). */
  recentProjects: z.array(z.string()).optional(),
});
export type StoredSettings = z.infer<typeof storedSettingsSchema>;

export interface SettingsStore {
  load(): StoredSettings;
  save(settings: StoredSettings): void;
  /** Where they are kept, for the user (and the docs). */
  readonly location: string;
}

/** The browser mode's settings file. A damaged file is set aside, not fatal. */
export class JsonFileSettingsStore implements SettingsStore {
  readonly location: string;

  constructor(dataDir: string) {
    ensurePrivateDir(dataDir);
    this.location = path.join(dataDir, 'settings.json');
  }

  load(): StoredSettings {
    let text: string;
    try {
      text = fs.readFileSync(this.location, 'utf8');
    } catch {
      return {};
    }
    try {
      return storedSettingsSchema.parse(JSON.parse(text));
    } catch {
      const aside = `${this.location}.damaged-${Date.now()}`;
      fs.renameSync(this.location, aside);
      console.error(`loom: ${this.location} was not valid settings; moved it to ${aside} and started from the defaults.`);
      return {};
    }
  }

  /**
   * Written to a private temp file, then renamed over: never a half-written file. A failed
   * write (a full disk) leaves the saved file as it was and takes the temp file away.
   */
  save(settings: StoredSettings): void {
    const temp = `${this.location}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(temp, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
      fs.chmodSync(temp, 0o600);
      fs.renameSync(temp, this.location);
    } catch (err) {
      fs.rmSync(temp, { force: true });
      throw err;
    }
  }
}
