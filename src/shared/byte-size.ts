const KB = 1024;
const MB = 1024 * KB;

/** One decimal, dropped when it is 0: 5, 1.2, 112. */
function short(value: number): string {
  return value.toFixed(1).replace(/\.0$/, '');
}

/**
 * A size for people, the one format the window, the prompts and the `loom` command use:
 * 512 B, 1.2 kB, 5 MB. Units of 1024, as the limits they describe are set
 * (MAX_IMAGE_BYTES is 5 MB, not 5.2).
 */
export function formatBytes(bytes: number): string {
  if (bytes < KB) return `${bytes} B`;
  if (bytes < MB) return `${short(bytes / KB)} kB`;
  return `${short(bytes / MB)} MB`;
}
