/**
 * The effective settings: what the user saved, else the environment (LOOM_BASE_URL,
 * LOOM_MODEL, LOOM_API_KEY/OPENAI_API_KEY), else the defaults — with run-time overrides
 * (command-line flags, tests) on top. Changes reach the engine at once.
 */
import type { Settings } from '../shared/contract';
import { DEFAULTS, type LoomConfig } from '../core/config';
import type { SettingsStore, StoredSettings } from './settings-store';

export type EngineSettings = Pick<LoomConfig, 'baseUrl' | 'model' | 'apiKey' | 'maxContextTokens' | 'mode'>;
export type SettingsPatch = Partial<Omit<Settings, 'hasApiKey'>> & { apiKey?: string };

export class SettingsService {
  private saved: StoredSettings;
  private readonly overrides: Partial<EngineSettings>;

  constructor(
    private readonly store: SettingsStore,
    private readonly env: NodeJS.ProcessEnv = process.env,
    overrides: Partial<EngineSettings> = {},
  ) {
    this.saved = store.load();
    this.overrides = { ...overrides };
  }

  /** What the engine runs with. */
  engine(): EngineSettings {
    const env = this.env;
    return {
      baseUrl: this.overrides.baseUrl ?? this.saved.baseUrl ?? nonEmpty(env.LOOM_BASE_URL) ?? DEFAULTS.baseUrl,
      model: this.overrides.model ?? this.saved.model ?? nonEmpty(env.LOOM_MODEL) ?? DEFAULTS.model,
      apiKey: this.overrides.apiKey ?? this.saved.apiKey ?? nonEmpty(env.LOOM_API_KEY) ?? nonEmpty(env.OPENAI_API_KEY) ?? '',
      maxContextTokens: this.overrides.maxContextTokens ?? this.saved.maxContextTokens ?? DEFAULTS.maxContextTokens,
      mode: this.overrides.mode ?? this.saved.mode ?? DEFAULTS.mode,
    };
  }

  /** What the settings dialog shows: never the key itself. */
  view(): Settings {
    const { apiKey, ...engine } = this.engine();
    return {
      ...engine,
      hasApiKey: apiKey.length > 0,
      theme: this.saved.theme ?? 'system',
      openTabs: this.saved.openTabs ?? [],
      activeTab: this.saved.activeTab ?? null,
    };
  }

  /** Saves the patch; an empty apiKey removes the stored key. Returns the new view. */
  update(patch: SettingsPatch): Settings {
    const next: StoredSettings = { ...this.saved };
    for (const [key, value] of Object.entries(patch) as [keyof StoredSettings, unknown][]) {
      if (value === undefined) continue;
      if (key === 'apiKey' && value === '') delete next.apiKey;
      else (next as Record<string, unknown>)[key] = value;
      // A value the user sets now wins over this run's override of it.
      delete (this.overrides as Record<string, unknown>)[key];
    }
    this.store.save(next);
    this.saved = next;
    return this.view();
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() ? value.trim() : undefined;
}
