/**
 * The unsent message of each session's tab, kept in localStorage so it survives a reload
 * or a restart; gone once sent (an empty box keeps nothing).
 */
const PREFIX = 'loom.draft.';

export function readDraft(sessionId: string): string {
  try {
    return localStorage.getItem(PREFIX + sessionId) ?? '';
  } catch {
    return ''; // storage unavailable (a locked-down browser): drafts live as long as the page
  }
}

export function saveDraft(sessionId: string, text: string): void {
  try {
    if (text) localStorage.setItem(PREFIX + sessionId, text);
    else localStorage.removeItem(PREFIX + sessionId);
  } catch {
    // Full or unavailable storage: the draft is still in the box, only not kept across a reload.
  }
}
