/**
 * Writing to the terminal or a pipe: output is never cut short by an early exit, a reader
 * that goes away (`loom --list-sessions | head -1`) ends the command quietly, and control
 * characters in what is written are made visible (terminalSafe).
 */
import { terminalSafe } from './terminal-safe';

/** Installs once: a closed pipe on stdout ends the process without an error message. */
export function exitQuietlyOnBrokenPipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/** Writes to stdout and resolves once the text has been handed to the OS. */
export function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => {
    process.stdout.write(terminalSafe(text), () => resolve());
  });
}

/** One line on stderr, prefixed with the command's name. */
export function writeError(message: string): void {
  process.stderr.write(`loom: ${terminalSafe(oneLineMessage(message))}\n`);
}

function oneLineMessage(message: string): string {
  return message
    .split('\n')
    .map((part) => part.trim())
    .filter(Boolean)
    .join(' ');
}

/** The width of the terminal stdout is shown on, or undefined when it goes to a pipe or file. */
export function terminalWidth(): number | undefined {
  return process.stdout.isTTY ? process.stdout.columns || 80 : undefined;
}
