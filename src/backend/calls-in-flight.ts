/**
 * The bridge calls still running, so a backend closes its database only after them: a
 * turn stopped by close() still writes how it ended to the store, and a store closed
 * under it would turn that into "The database connection is not open".
 */
import { LoomError } from '../core/errors';
import type { Handlers } from '../shared/contract';

export class CallsInFlight {
  private readonly running = new Set<Promise<void>>();
  private refusing = false;

  /** The same handlers, each call counted until it settles; refused once closing began. */
  wrap(handlers: Handlers): Handlers {
    const wrapped: Record<string, (input: never) => unknown> = {};
    for (const [method, handler] of Object.entries(handlers) as [string, (input: never) => unknown][]) {
      wrapped[method] = (input) => {
        if (this.refusing) throw new LoomError('Loom is shutting down; this request was not run.', 'closing');
        return this.count(handler(input));
      };
    }
    return wrapped as Handlers;
  }

  /** Refuses new calls and resolves once the running ones settled, or after `waitMs` at most. */
  async drain(waitMs: number): Promise<void> {
    this.refusing = true;
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
    await Promise.race([Promise.all(this.running), givenUp]);
    clearTimeout(timer);
  }

  private count<T>(result: T): T {
    if (!(result instanceof Promise)) return result;
    // The caller handles the outcome; this copy only marks when it is over.
    const settled = result.then(ignore, ignore);
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
    return result;
  }
}

function ignore(): void {}
