/**
 * Window-wide keyboard shortcuts. Alt-based, because a browser keeps Ctrl+N/T/W and
 * Ctrl+Tab for itself; the same keys work in the desktop app.
 *   Alt+N new session · Alt+W close tab · Alt+] / Alt+[ next / previous tab · Alt+B show/hide the sidebar
 *   Ctrl+K (Cmd+K) focus the session search · Ctrl+F (Cmd+F) find in the open session · Enter sends (in the message box)
 */
import { useEffect } from 'react';

export interface ShortcutActions {
  newSession(): void;
  closeTab(): void;
  nextTab(): void;
  previousTab(): void;
  focusSearch(): void;
  findInSession(): void;
  toggleSidebar(): void;
}

function shortcutFor(event: KeyboardEvent): keyof ShortcutActions | null {
  const mod = event.ctrlKey || event.metaKey;
  if (event.altKey && !mod && !event.shiftKey) {
    if (event.code === 'KeyN') return 'newSession';
    if (event.code === 'KeyW') return 'closeTab';
    if (event.code === 'BracketRight') return 'nextTab';
    if (event.code === 'BracketLeft') return 'previousTab';
    if (event.code === 'KeyB') return 'toggleSidebar';
  }
  if (mod && !event.altKey && event.code === 'KeyK') return 'focusSearch';
  // The browser's own find sees only the rows of the virtualised transcript that exist.
  if (mod && !event.altKey && !event.shiftKey && event.code === 'KeyF') return 'findInSession';
  if (event.ctrlKey && !event.altKey && event.code === 'PageDown') return 'nextTab';
  if (event.ctrlKey && !event.altKey && event.code === 'PageUp') return 'previousTab';
  return null;
}

/** Active while `enabled` (off while a modal dialog is open). */
export function useShortcuts(actions: ShortcutActions, enabled: boolean): void {
  useEffect(() => {
    if (!enabled) return;
    const onKey = (event: KeyboardEvent) => {
      const name = shortcutFor(event);
      if (!name) return;
      event.preventDefault();
      actions[name]();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [actions, enabled]);
}
