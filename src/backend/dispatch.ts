/**
 * Runs one bridge request against the handlers: checks the method exists, validates the
 * input with the contract's zod schema, and turns every outcome into a BridgeResult.
 * Both transports (HTTP in src/server, IPC in src/main) go through this one function.
 */
import { z } from 'zod';
import { contract, isMethodName, type BridgeResult, type Handlers, type MethodName } from '../shared/contract';
import { isDiskFull } from '../core/disk-full';
import { errorMessage, isLoomError } from '../core/errors';
import { explainDamage } from '../core/store/damage';

export async function dispatch(handlers: Handlers, method: unknown, rawInput: unknown): Promise<BridgeResult> {
  if (!isMethodName(method)) return failure('unknown_method', `Unknown method: ${String(method).slice(0, 100)}.`);
  const parsed = contract[method].input.safeParse(rawInput === undefined ? {} : rawInput);
  if (!parsed.success) return failure('bad_input', describeIssues(method, parsed.error));
  try {
    const handler = handlers[method] as (input: unknown) => unknown;
    return { ok: true, value: (await handler(parsed.data)) ?? null };
  } catch (caught) {
    // A broken page can surface in any query: the user gets the way out, not a bug report.
    const err = explainDamage(caught);
    if (isLoomError(err)) return failure(err.code, err.message);
    if (isDiskFull(err)) return failure('disk_full', errorMessage(err));
    // A bug, not a user error: keep the detail in the log, give the UI one line.
    console.error(`loom: ${method} failed:`, err);
    return failure('internal', `Unexpected error in ${method}: ${firstLine(errorMessage(err))}`);
  }
}

export function failure(code: string, message: string): BridgeResult {
  return { ok: false, error: { code, message } };
}

/** One readable sentence from zod's issues, naming the field. */
function describeIssues(method: MethodName, error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    return `${where}${issue.message}`;
  });
  return `Invalid input for ${method}: ${parts.join('; ')}`;
}

function firstLine(text: string): string {
  const [line = ''] = text.split('\n'); // split gives at least one line
  return line.slice(0, 300);
}
