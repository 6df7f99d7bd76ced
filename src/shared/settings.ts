/**
 * The settings the desktop app and the browser mode share. Plain constants (no zod), so
 * the renderer can use them without bundling the contract's schemas.
 */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'dangerouslySkipPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** What the settings dialog edits. The API key itself never travels back to the UI. */
export interface Settings {
  baseUrl: string;
  model: string;
  hasApiKey: boolean;
  maxContextTokens: number;
  /** The model's context window in tokens when the user states it; null: learnt from the server or a refusal. */
  modelWindow: number | null;
  mode: PermissionMode;
  theme: Theme;
  /** Session ids open as tabs, in tab order; restored after a restart or reload. */
  openTabs: string[];
  activeTab: string | null;
  /** Environment variables tools get on top of the base allowlist (PATH, HOME, locale…). */
  passEnv: string[];
  /** The sync hub's PostgreSQL URL with its password shown as `***` ('' when sync is off; docs/DESIGN.md#sync-through-a-hub). */
  hubUrl: string;
  /** Days a deleted session stays in the Trash before it is purged (docs/DESIGN.md#trash). */
  trashDays: number;
}

/** The longest the Trash keeps a session: ten years. */
export const MAX_TRASH_DAYS = 3650;

/** Stands for the saved hub password in the URL the settings dialog shows; sent back unchanged, it keeps that password. */
export const HUB_PASSWORD_MASK = '***';

/** The environment variables every tool gets (`LC_*`: each locale variable); others only when passed. */
export const BASE_TOOL_ENV = ['PATH', 'HOME', 'LANG', 'LC_*', 'TERM', 'TZ', 'USER', 'SHELL', 'TMPDIR'] as const;

/** What `--pass-env` and the setting accept as a variable name. */
export const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How long a session stays in the Trash unless set otherwise (settings, --trash-days). */
export const DEFAULT_TRASH_DAYS = 30;
