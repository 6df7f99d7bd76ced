/**
 * How many messages a session has, as the user counts them: the first transcript message of
 * every session Loom makes is its system prompt, folded away in the transcript and not
 * counted (docs/DESIGN.md#sidebar-paging). The window and the `loom` command say it alike.
 */
export function visibleMessageCount(meta: { message_count: number }): number {
  return Math.max(0, meta.message_count - 1);
}

/**
 * A session nothing was said in yet: no message but its system prompt, no title. A new
 * session is one until its first message (docs/DESIGN.md#the-sidebar): the sidebar does not
 * list it, and closing its tab deletes it.
 */
export function isUnstarted(meta: { message_count: number; title: string | null }): boolean {
  return visibleMessageCount(meta) === 0 && meta.title === null;
}

/** "No messages", "1 message", "1,200 messages". */
export function messageCountText(meta: { message_count: number }): string {
  const count = visibleMessageCount(meta);
  return count === 0 ? 'No messages' : `${count.toLocaleString('en-US')} message${count === 1 ? '' : 's'}`;
}
