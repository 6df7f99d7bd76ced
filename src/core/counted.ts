/** "1 line", "2 lines": a count with its noun, for messages the user or the model reads. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
