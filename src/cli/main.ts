/**
 * The `loom` command (started by ./bin.ts, or by the packaged desktop app's `--cli`): parse the command line, run one lifecycle command or a chat, exit.
 * Whatever goes wrong ends as one line on stderr — 2 for a usage mistake, 1 for a refused
 * operation or an unexpected failure — never a stack trace (LOOM_DEBUG=1 shows one).
 */
import { isDiskFull } from '../core/disk-full';
import { isLoomError, errorMessage } from '../core/errors';
import { prepareCompileCache, useCompileCache } from './compile-cache';
import type { LoomConfig } from '../core/config';
import { parseCommandLine, type CliAction } from './options';
import { exitQuietlyOnBrokenPipe, writeError, writeOut } from './output';

async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv);
  if (parsed.kind === 'exit') return parsed.code;
  const { action, config } = parsed;
  // Before any command's code loads: what it loads is compiled from the cache from then on.
  useCompileCache(config.dataDir);
  const code = await runAction(action, config);
  // Not made by --doctor, which looks at a data folder that may be damaged and changes nothing in it.
  if (code === 0 && action.kind !== 'doctor') prepareCompileCache(config.dataDir);
  return code;
}

async function runAction(action: CliAction, config: LoomConfig): Promise<number> {
  try {
    // Each command loads its own code (a chunk of the build: docs/ARCHITECTURE.md#the-node-build),
    // so a lifecycle command never parses the agent, the model client nor the MCP SDK.
    if (action.kind === 'chat') return await (await import('./chat')).runChat(config, action);
    if (action.kind === 'hub-init' || action.kind === 'hub-add-member' || action.kind === 'hub-search')
      return await (await import('./hub')).runHubCommand(action);
    if (action.kind === 'sync' || action.kind === 'share') return await (await import('./sync')).runSyncCommand(action, config);
    const commands = await import('./commands');
    return action.kind === 'doctor' ? await commands.runDoctor(config) : await commands.runLifecycle(action, config);
  } catch (err) {
    // A broken page can surface in any query, long after loom.db was opened. Loaded here
    // only: db.ts loads the native SQLite module, which --version and --help do without.
    const { explainDamage, databasePath } = await import('./commands');
    throw explainDamage(err, databasePath(config.dataDir));
  }
}

/** 2 for a mistake in the command line (the engine flags some too, e.g. an unknown --tools name). */
function exitCodeFor(err: unknown): number {
  return isLoomError(err) && err.code === 'usage' ? 2 : 1;
}

function report(err: unknown): void {
  if (process.env.LOOM_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  // A full disk is not a bug: errorMessage gives its one line of advice as is.
  writeError(isLoomError(err) || isDiskFull(err) ? errorMessage(err) : `unexpected error: ${errorMessage(err)}`);
}

/** Exits only once everything written to stdout has been handed over, so pipes get it all. */
async function finish(code: number): Promise<never> {
  await writeOut('');
  process.exit(code);
}

function fail(err: unknown): Promise<never> {
  report(err);
  return finish(exitCodeFor(err));
}

/** Runs one `loom` command line to its end, then exits the process with its code. */
export function runCommandLine(argv: string[]): void {
  exitQuietlyOnBrokenPipe();
  process.on('uncaughtException', (err) => void fail(err));
  process.on('unhandledRejection', (err) => void fail(err));
  main(argv).then(finish, fail);
}
