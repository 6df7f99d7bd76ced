/**
 * The first line of a file another program wrote, read a bounded piece at a time: enough to
 * tell whether the file is a source's session (import/run.ts) before reading all of it. A
 * file of one endless line stops the read at the bound, not at the end of the file.
 */
import type { FileHandle } from 'node:fs/promises';

/** How far a first line is looked for: a Codex header carries its instructions, tens of KB. */
const MAX_FIRST_LINE_BYTES = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

/** The text before the first newline (all of a file without one); undefined when that is longer than the bound. */
export async function firstLine(handle: FileHandle, maxBytes = MAX_FIRST_LINE_BYTES): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    // Positioned reads leave the handle's own position at the start, for the whole read after.
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(CHUNK_BYTES), 0, CHUNK_BYTES, length);
    const chunk = buffer.subarray(0, bytesRead);
    const newline = chunk.indexOf(0x0a);
    if (newline >= 0 || bytesRead === 0) {
      chunks.push(newline >= 0 ? chunk.subarray(0, newline) : chunk);
      const line = Buffer.concat(chunks);
      return line.length > maxBytes ? undefined : line.toString('utf8');
    }
    chunks.push(chunk);
    length += bytesRead;
    if (length > maxBytes) return undefined;
  }
}
