/**
 * What Loom has learnt of each model's context window, per server (the `model_windows`
 * table): kept in the store so that every process, the command line and the app alike,
 * knows it from the next request on, and a refusal is paid for once.
 */
import type Database from 'better-sqlite3';
import { plausibleWindow, type WindowSource } from './context-window';

/** How long a server that said nothing of a model's window is not asked again. */
const SILENT_SERVER_RECHECK_MS = 24 * 60 * 60 * 1000;

interface WindowRow {
  source: WindowSource;
  tokens: number | null;
  at: string;
}

export class ModelWindows {
  constructor(private readonly db: Database.Database) {}

  /** The figures known for this server and model, by source. */
  known(baseUrl: string, model: string): Partial<Record<WindowSource, number>> {
    const known: Partial<Record<WindowSource, number>> = {};
    for (const row of this.rows(baseUrl, model)) {
      const tokens = plausibleWindow(row.tokens);
      if (tokens !== null) known[row.source] = tokens;
    }
    return known;
  }

  /** Whether the server should be asked: it never was, or it said nothing a day ago or more. */
  shouldAskServer(baseUrl: string, model: string, now = Date.now()): boolean {
    const row = this.rows(baseUrl, model).find((r) => r.source === 'server');
    if (!row) return true;
    return row.tokens === null && now - Date.parse(row.at) >= SILENT_SERVER_RECHECK_MS;
  }

  /** Records a figure (null: the server was asked and did not say); a later one of the same source replaces it. */
  record(baseUrl: string, model: string, source: WindowSource, tokens: number | null): void {
    this.db
      .prepare('INSERT OR REPLACE INTO model_windows (base_url, model, source, tokens, at) VALUES (?, ?, ?, ?, ?)')
      .run(baseUrl, model, source, tokens, new Date().toISOString());
  }

  /** Forgets the user's setting for this model (they cleared it). */
  forgetSetting(baseUrl: string, model: string): void {
    this.db.prepare("DELETE FROM model_windows WHERE base_url = ? AND model = ? AND source = 'setting'").run(baseUrl, model);
  }

  private rows(baseUrl: string, model: string): WindowRow[] {
    return this.db.prepare('SELECT source, tokens, at FROM model_windows WHERE base_url = ? AND model = ?').all(baseUrl, model) as WindowRow[];
  }
}
