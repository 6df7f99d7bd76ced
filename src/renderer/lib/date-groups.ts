/**
 * The sidebar's groups (docs/DESIGN.md#the-sidebar): the pinned sessions, then the rest by
 * their last activity in local time. The list is paged, so no group is ever complete:
 * a heading is drawn above the row where the group changes from the row before.
 */
export type SessionGroup = 'Pinned' | 'Today' | 'Yesterday' | 'Previous 7 days' | 'Older';

/** The group of a session last active at `updatedAt`; a time ahead of the clock counts as today. */
export function sessionGroup(session: { pinned: boolean; updated_at: string }, now: Date): SessionGroup {
  if (session.pinned) return 'Pinned';
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const at = Date.parse(session.updated_at);
  if (at >= today.getTime()) return 'Today';
  // Calendar days, not 24-hour spans: a day is 23 or 25 hours long when the clocks change.
  const yesterday = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
  if (at >= yesterday.getTime()) return 'Yesterday';
  const weekAgo = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 7);
  return at >= weekAgo.getTime() ? 'Previous 7 days' : 'Older';
}

/** The heading above row `index` of a list in listing order: its group where that differs from the row before's, else null. */
export function groupHeading(items: readonly { pinned: boolean; updated_at: string }[], index: number, now: Date): SessionGroup | null {
  const item = items[index];
  if (item === undefined) return null;
  const group = sessionGroup(item, now);
  const before = items[index - 1];
  return before !== undefined && sessionGroup(before, now) === group ? null : group;
}
