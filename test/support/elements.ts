/**
 * Checked reads for tests. Under noUncheckedIndexedAccess `list[i]` may be undefined; in a
 * test a row, request or match that is not there must fail the test with a message that
 * says so, not throw a TypeError lines later or be asserted away with `!`.
 */

/** The element at `index` of `list`; a negative index counts from the end, as `Array.prototype.at` does. */
export function nth<T>(list: readonly T[], index: number): T {
  const value = list.at(index);
  if (value === undefined) throw new Error(`expected an element at ${index} of ${list.length}`);
  return value;
}

type Leading<T, N extends number, R extends T[] = []> = R['length'] extends N ? R : Leading<T, N, [...R, T]>;

/** The first `count` elements of `list`, to destructure; fails when it holds fewer. */
export function take<T, N extends number>(list: readonly T[], count: N): Leading<T, N> {
  if (list.length < count) throw new Error(`expected at least ${count} elements, got ${list.length}`);
  return list.slice(0, count) as Leading<T, N>;
}

/** `record[key]`, failing when the record has no such key. */
export function prop<T>(record: Readonly<Record<string, T>>, key: string): T {
  const value: T | undefined = record[key];
  if (value === undefined) throw new Error(`expected a key "${key}" among [${Object.keys(record).join(', ')}]`);
  return value;
}
