/** Telling text files from binary ones, the way git does: a NUL byte near the start. */
export const SNIFF_BYTES = 8000;

export function looksBinary(buf: Buffer): boolean {
  return buf.subarray(0, SNIFF_BYTES).includes(0);
}
