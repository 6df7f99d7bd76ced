/**
 * Whether the session sidebar is folded to a narrow rail: the user's choice, kept in this
 * window's storage (per browser profile, or the desktop app's), so it survives a reload.
 */
import { useCallback, useEffect, useState } from 'react';

const STORAGE_KEY = 'loom.sidebarCollapsed';

function stored(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) === '1';
  } catch {
    return false; // storage refused (a locked-down profile): start expanded
  }
}

export function useSidebarCollapsed() {
  const [collapsed, setCollapsed] = useState(stored);
  useEffect(() => {
    try {
      localStorage.setItem(STORAGE_KEY, collapsed ? '1' : '0');
    } catch {
      // Not remembered, still toggled: the choice lasts until the page reloads.
    }
  }, [collapsed]);
  const toggle = useCallback(() => setCollapsed((now) => !now), []);
  const expand = useCallback(() => setCollapsed(false), []);
  return { collapsed, toggle, expand };
}
