/**
 * The abort controller behind one model request. It fires when the caller's signal fires
 * (Ctrl-C: this request only), when the whole request has taken totalMs (--llm-timeout:
 * a server that trickles a reply forever is stopped too), or when the server has been
 * silent for idleMs (--llm-idle-timeout). It remembers which, because the SDK reports
 * every one of them as a plain abort.
 */
export type TimeoutKind = 'total' | 'idle';

export interface RequestLimits {
  totalMs: number;
  idleMs: number;
}

export class RequestGuard {
  private readonly controller = new AbortController();
  private readonly totalTimer: NodeJS.Timeout;
  private idleTimer: NodeJS.Timeout | undefined;
  timedOut: TimeoutKind | null = null;
  cancelled = false;

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    private readonly limits: RequestLimits,
  ) {
    callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.totalTimer = setTimeout(() => this.expire('total'), limits.totalMs);
    if (callerSignal?.aborted) this.onCallerAbort();
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The server sent something: restart the silence timer. */
  touch(): void {
    clearTimeout(this.idleTimer);
    if (this.controller.signal.aborted) return;
    this.idleTimer = setTimeout(() => this.expire('idle'), this.limits.idleMs);
  }

  dispose(): void {
    this.clearTimers();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    // Ends the HTTP request if the caller stopped reading early (e.g. an onText error).
    this.controller.abort();
  }

  private expire(kind: TimeoutKind): void {
    this.timedOut = kind;
    this.clearTimers();
    this.controller.abort();
  }

  private clearTimers(): void {
    clearTimeout(this.totalTimer);
    clearTimeout(this.idleTimer);
  }

  private readonly onCallerAbort = (): void => {
    this.cancelled = true;
    this.clearTimers();
    this.controller.abort();
  };
}
