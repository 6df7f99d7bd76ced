/**
 * The bench's shared helpers: timing with repeated runs (p50/p99) and plain-text tables.
 * Each section (store, context, ui) measures its own operations and prints its own table.
 */
export interface BenchSection {
  name: string;
  run(): Promise<void> | void;
}

export interface Timing {
  p50: number;
  p99: number;
  runs: number;
}

/** Milliseconds taken by one call. */
export function timeOnce(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Milliseconds taken by one call of an asynchronous `fn`, until its promise settles. */
export async function timeOnceAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs `fn` `warmup` times unmeasured, then `runs` times; nearest-rank percentiles. */
export function sample(fn: (run: number) => unknown, runs: number, warmup = 1): Timing {
  for (let i = 0; i < warmup; i++) fn(-1 - i);
  const times = Array.from({ length: runs }, (_, i) => timeOnce(() => fn(i))).sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), runs };
}

export function percentile(sorted: number[], p: number): number {
  const value = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  if (value === undefined) throw new Error('a percentile of no samples');
  return value;
}

export function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function formatBytes(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(2)} GB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

export function formatRatio(ratio: number): string {
  return ratio >= 10 ? `${Math.round(ratio).toLocaleString('en-US')}×` : `${ratio.toFixed(1)}×`;
}

/** A left-aligned text table with a title line. */
export function printTable(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  console.log('');
}

/** Progress on stderr, so the tables on stdout stay clean. */
export function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}
