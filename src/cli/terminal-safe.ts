/**
 * Text from outside Loom (model replies, tool output, stored titles and summaries, file
 * names) made safe to print on a terminal. A terminal obeys control characters: ESC and
 * the C1 CSI (U+009B) start sequences that can set the clipboard (OSC 52), retitle the
 * window (OSC 0), clear the screen or move the cursor to overwrite what was printed.
 *
 * Every C0 control except newline and tab, DEL, and every C1 control (U+0080–U+009F) is
 * replaced by its visible escape `\u001b` — JSON's own spelling, so sanitised `--json`
 * output is still valid JSON with the same values. The mapping is per character, so a
 * sequence split across two streamed chunks is made visible all the same.
 *
 * Everything the CLI prints passes through here; colour Loom adds of its own must be
 * added after this, never before.
 */
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
