/**
 * The abort controller behind one model request. It fires when the caller's signal fires
 * (Ctrl-C: this request only) or when the server has been silent for timeoutMs, and it
 * remembers which, because the SDK reports both as a plain abort.
 */
export class RequestGuard {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  timedOut = false;
  cancelled = false;

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    private readonly timeoutMs: number,
  ) {
    callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    if (callerSignal?.aborted) this.onCallerAbort();
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The server sent something: restart the silence timer. */
  touch(): void {
    clearTimeout(this.timer);
    if (this.controller.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    // Ends the HTTP request if the caller stopped reading early (e.g. an onText error).
    this.controller.abort();
  }

  private readonly onCallerAbort = (): void => {
    this.cancelled = true;
    clearTimeout(this.timer);
    this.controller.abort();
  };
}
