/** The line to show for a failure: an Error's message (the bridge keeps the engine's one line), or what was thrown. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
