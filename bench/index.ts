/**
 * `npm run bench`: runs every section in order; each prints its own table.
 * To add a section, export a BenchSection from bench/<area>.ts and append it below.
 * BENCH_ONLY=ui (any part of a section's name, case-insensitive) runs just the sections it names.
 */
import { isMainThread } from 'node:worker_threads';
import { runAppenderThread } from './appender';
import type { BenchSection } from './harness';
import { branchesSection } from './branches';
import { cliSection } from './cli';
import { cliTurnSection } from './cli-turn';
import { findSection } from './find';
import { contextSection } from './context';
import { importSection } from './import';
import { importBranchesSection } from './import-branches';
import { importOpencodeSection } from './import-opencode';
import { liveSection } from './live';
import { redactionSection } from './redaction';
import { storeSection } from './store';
import { subagentsSection } from './subagents';
import { syncSection } from './sync';
import { syncAppSection } from './sync-app';
import { uiSection } from './ui';

const sections: BenchSection[] = [
  storeSection, // the session store vs one-JSON-file-per-session baseline
  branchesSection, // forks at a message, the derived context, migration to schema 3
  contextSection, // context budget per request and compaction without the model call
  findSection, // find in session: the backend's answer in a 5,000-message fork
  liveSection, // other processes' changes reaching a backend's windows (PRAGMA data_version)
  redactionSection, // redacting every string of a 10 MB session, as an export does
  importSection, // loom --import-from: 1,000 Claude Code sessions, then again unchanged
  importOpencodeSection, // loom --import-from opencode: an opencode.db of 1,000 sessions, then again unchanged
  importBranchesSection, // loom --import-from: a Claude Code and a pi file with many branches, at half and full size
  cliSection, // `loom` lifecycle commands beside a bare `node -e 0`
  cliTurnSection, // `loom -p` until its first model request, new and 100,000-message sessions
  syncSection, // sync through a PostgreSQL hub: first sync of the bench store, device A to device B, team search over 100,000 sessions
  uiSection, // the renderer in Chromium: a 5,000-message session, a 10,000-session sidebar
  syncAppSection, // the app's background sync: a rename on device A reaching device B's windows
  subagentsSection, // three run_subagent calls together against one after another, and a sub-agent's start
];

const only = process.env.BENCH_ONLY?.toLowerCase();
if (isMainThread) {
  for (const section of sections.filter((s) => !only || s.name.toLowerCase().includes(only))) {
    console.log(`\n=== ${section.name} ===`);
    await section.run();
  }
} else {
  runAppenderThread(); // the UI bench's other connection, on its own thread (appender.ts)
}
