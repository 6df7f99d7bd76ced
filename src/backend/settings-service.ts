/**
 * The effective settings: what the user saved, else the environment (LOOM_BASE_URL,
 * LOOM_MODEL, LOOM_API_KEY/OPENAI_API_KEY), else the defaults — with run-time overrides
 * (command-line flags, tests) on top. Changes reach the engine at once.
 */
import type { Settings } from '../shared/contract';
import { DEFAULTS, type LoomConfig } from '../core/config';
import { DEFAULT_TRASH_DAYS } from '../shared/settings';
import { keyFor, scopeSavedKey } from './api-key-scope';
import { maskPassword } from '../core/sync/hub-url';
import { unmaskHubUrl } from './hub-url';
import type { SettingsStore, StoredSettings } from './settings-store';

export type EngineSettings = Pick<LoomConfig, 'baseUrl' | 'model' | 'apiKey' | 'maxContextTokens' | 'modelWindow' | 'mode' | 'passEnv'> & { trashDays: number };
export type SettingsPatch = Partial<Omit<Settings, 'hasApiKey'>> & { apiKey?: string };

/** How many recent project folders are remembered. */
const MAX_RECENT_PROJECTS = 10;

export class SettingsService {
  private saved: StoredSettings;
  private readonly overrides: Partial<EngineSettings>;
  /** The URL this run started with: the environment's and the command line's keys go only there. */
  private readonly launchUrl: string;

  constructor(
    private readonly store: SettingsStore,
    private readonly env: NodeJS.ProcessEnv = process.env,
    overrides: Partial<EngineSettings> = {},
  ) {
    this.saved = store.load();
    this.overrides = { ...overrides };
    this.launchUrl = overrides.baseUrl ?? this.environmentUrl();
  }

  /** What the engine runs with. */
  engine(): EngineSettings {
    const env = this.env;
    const baseUrl = this.baseUrl(this.saved);
    return {
      baseUrl,
      model: this.overrides.model ?? this.saved.model ?? nonEmpty(env.LOOM_MODEL) ?? DEFAULTS.model,
      apiKey: this.keyFor(baseUrl),
      maxContextTokens: this.overrides.maxContextTokens ?? this.saved.maxContextTokens ?? DEFAULTS.maxContextTokens,
      modelWindow: this.overrides.modelWindow ?? this.saved.modelWindow ?? undefined,
      mode: this.overrides.mode ?? this.saved.mode ?? DEFAULTS.mode,
      passEnv: this.overrides.passEnv ?? this.saved.passEnv ?? [],
      trashDays: this.overrides.trashDays ?? this.saved.trashDays ?? DEFAULT_TRASH_DAYS,
    };
  }

  /**
   * The server a connection test or model list asks, and the key it may send there: the
   * key typed for it, else the one Loom holds for that very URL (api-key-scope.ts), so a
   * URL typed in the dialog never gets another server's key.
   */
  serverFor(probe: { baseUrl?: string; apiKey?: string }): { baseUrl: string; apiKey: string } {
    const baseUrl = probe.baseUrl ?? this.engine().baseUrl;
    return { baseUrl, apiKey: probe.apiKey ?? this.keyFor(baseUrl) };
  }

  /** What the settings dialog shows: never the key itself. */
  view(): Settings {
    const { apiKey, passEnv = [], modelWindow, ...engine } = this.engine();
    return {
      ...engine,
      modelWindow: modelWindow ?? null,
      passEnv,
      hasApiKey: apiKey.length > 0,
      theme: this.saved.theme ?? 'system',
      openTabs: this.saved.openTabs ?? [],
      activeTab: this.saved.activeTab ?? null,
      hubUrl: maskPassword(this.hubUrl() ?? ''),
    };
  }

  /** The sync hub: the saved URL, else LOOM_HUB; null when sync is off. Holds the password: never for the UI. */
  hubUrl(): string | null {
    if (this.saved.hubUrl !== undefined) return this.saved.hubUrl || null;
    return nonEmpty(this.env.LOOM_HUB) ?? null;
  }

  /**
   * Saves the patch; an empty apiKey removes the stored key, and so does a new base URL
   * without a new key (api-key-scope.ts). An empty hubUrl turns sync off (LOOM_HUB aside:
   * saved as '' it wins over the environment); a `***` password in it keeps the saved one. Returns the new view. A failed save (a full
   * disk) changes nothing, not even this run's overrides.
   */
  update(patch: SettingsPatch): Settings {
    const urlBefore = this.baseUrl(this.saved);
    const given = (Object.keys(patch) as (keyof SettingsPatch)[]).filter((key) => patch[key] !== undefined);
    const next: StoredSettings = { ...this.saved };
    for (const key of given) {
      if (key === 'apiKey' && patch.apiKey === '') delete next.apiKey;
      else if (key === 'hubUrl') next.hubUrl = unmaskHubUrl(patch.hubUrl ?? '', this.hubUrl() ?? undefined);
      else (next as Record<string, unknown>)[key] = patch[key];
    }
    const scoped = scopeSavedKey(next, patch.apiKey, urlBefore, patch.baseUrl ?? this.baseUrl(next));
    this.store.save(scoped);
    this.saved = scoped;
    // A value the user sets now wins over this run's override of it.
    for (const key of given) delete (this.overrides as Record<string, unknown>)[key];
    return this.view();
  }

  /** The project folders chosen, most recent first. */
  recentProjects(): string[] {
    return this.saved.recentProjects ?? [];
  }

  /** Puts `dir` first among the recent folders (once), keeping the newest MAX_RECENT_PROJECTS. */
  rememberProject(dir: string): void {
    const recent = [dir, ...this.recentProjects().filter((known) => known !== dir)].slice(0, MAX_RECENT_PROJECTS);
    const next = { ...this.saved, recentProjects: recent };
    this.store.save(next);
    this.saved = next;
  }

  private keyFor(baseUrl: string): string {
    return keyFor(baseUrl, [
      { key: this.overrides.apiKey, url: this.launchUrl },
      { key: this.saved.apiKey, url: this.saved.baseUrl ?? this.environmentUrl() },
      { key: nonEmpty(this.env.LOOM_API_KEY) ?? nonEmpty(this.env.OPENAI_API_KEY), url: this.launchUrl },
    ]);
  }

  private baseUrl(saved: StoredSettings): string {
    return this.overrides.baseUrl ?? saved.baseUrl ?? this.environmentUrl();
  }

  private environmentUrl(): string {
    return nonEmpty(this.env.LOOM_BASE_URL) ?? DEFAULTS.baseUrl;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() ? value.trim() : undefined;
}
