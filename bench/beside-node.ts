/**
 * Timing commands beside a bare `node -e 0` (bench/cli.ts, bench/cli-turn.ts): every command
 * once per round, rounds interleaved, so a busy moment of a shared machine slows all alike;
 * the ratio of each p50 to node's is the figure that counts. The first row is node itself.
 */
import { formatMs, percentile, printTable, progress, type Timing } from './harness';

export interface BesideNode {
  label: string;
  /** Milliseconds from spawn to the moment that counts (the process's exit, or its first request). */
  measure: () => number | Promise<number>;
  /** The most the p50 may be, as a multiple of node's; none for a reference (node itself, a floor). */
  target?: number;
}

/** A command and how long it took. */
export interface Timed {
  row: BesideNode;
  timing: Timing;
}

/** `rounds` rounds after one unmeasured one, each command once in turn. */
export async function timeInterleaved(rows: BesideNode[], rounds: number): Promise<Timed[]> {
  const measured = rows.map((row) => ({ row, times: [] as number[] }));
  for (let round = -1; round < rounds; round++) {
    for (const { row, times } of measured) {
      const ms = await row.measure();
      if (round >= 0) times.push(ms);
    }
    if (round % 10 === 9) progress(`  ${round + 1} of ${rounds} rounds`);
  }
  return measured.map(({ row, times }) => {
    const sorted = times.sort((a, b) => a - b);
    return { row, timing: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), runs: sorted.length } };
  });
}

export function printBesideNode(title: string, timed: Timed[]): void {
  const [node] = timed;
  if (!node) throw new Error('no command was timed');
  const bare = node.timing.p50;
  printTable(
    title,
    ['command', 'p50', 'p99', 'p50 / node -e 0', 'target', 'met'],
    timed.map(({ row, timing: { p50, p99 } }, i) => {
      const ratio = p50 / bare;
      const shown = [row.label, formatMs(p50), formatMs(p99), i === 0 ? '1.0×' : `${ratio.toFixed(2)}×`];
      if (row.target === undefined) return [...shown, '-', '-'];
      return [...shown, `≤ ${row.target}×`, ratio <= row.target ? 'yes' : 'NO'];
    }),
  );
}
