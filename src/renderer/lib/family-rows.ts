/**
 * The sidebar's rows (docs/DESIGN.md#the-sidebar): a conversation and its branches (fork,
 * edit, regenerate, an import's) fold into one row, placed where its first member lists:
 * the newest, or a pinned one (pinning a branch pins its family). The row opens that
 * member: the branch last worked in is where a user goes on, and it is the one whose
 * title and time the row shows. Expanded, the family's other members follow it, each a
 * row of its own. Search hits are per session: they never fold.
 */
export interface Listed {
  id: string;
  pinned: boolean;
  updated_at: string;
}

export type SidebarRow<T extends Listed> =
  | {
      kind: 'family';
      /** The member the row shows and opens. */
      item: T;
      family: string;
      /** Every member, this one first, in listing order. */
      members: T[];
      expanded: boolean;
      /** This row's place among the family rows (their date groups: lib/date-groups.ts). */
      position: number;
    }
  | { kind: 'branch'; item: T; family: string };

/** `items` in listing order, folded by `families` (a session missing from it is its own); `fold` false: one row each. */
export function familyRows<T extends Listed>(
  items: readonly T[],
  families: Readonly<Record<string, string>>,
  expanded: ReadonlySet<string>,
  fold: boolean,
): SidebarRow<T>[] {
  const members = new Map<string, T[]>();
  for (const item of items) {
    const family = fold ? (families[item.id] ?? item.id) : item.id;
    const known = members.get(family);
    if (known) known.push(item);
    else members.set(family, [item]);
  }
  const rows: SidebarRow<T>[] = [];
  let position = 0;
  for (const [family, [item, ...branches]] of members) {
    if (item === undefined) continue;
    const open = branches.length > 0 && expanded.has(family);
    rows.push({ kind: 'family', item, family, members: [item, ...branches], expanded: open, position: position++ });
    if (open) rows.push(...branches.map((branch) => ({ kind: 'branch' as const, item: branch, family })));
  }
  return rows;
}

/** The count a family row shows: every member is a branch of the conversation, as the "2 / 3" switcher counts them. */
export function branchCount(n: number): string {
  return `${n} branches`;
}
