/** A failed bridge call: `message` is the one-line sentence to show the user. */
export class BridgeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

/**
 * The browser mode refused the page's token (a restart made a new one): the window says so
 * in one banner (App.tsx, from onAccessLost), so the call that met the refusal says nothing more.
 */
export function isAccessLost(err: unknown): boolean {
  return err instanceof BridgeError && err.code === 'unauthorized';
}
