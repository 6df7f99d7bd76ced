/**
 * Focus goes back where it came from when a dialog or menu closes (by Escape, a button, a
 * click elsewhere), never to the page body. A dialog opened from a menu's item returns to
 * the control that opened the menu, since the item is gone by then.
 */
import { useEffect, useState } from 'react';

/** Menus (role="menu") and the control each was opened from. */
const menuOpeners = new WeakMap<Element, HTMLElement>();

export function registerMenuOpener(menu: Element, opener: HTMLElement): void {
  menuOpeners.set(menu, opener);
}

/** The control that has the focus now, or the opener of the menu it sits in. */
function focusOrigin(): HTMLElement | null {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || active === document.body) return null;
  const menu = active.closest('[role="menu"]');
  return (menu && menuOpeners.get(menu)) ?? active;
}

/**
 * Remembers where the focus was when the component first rendered (or `opener`) and puts
 * it back there when the component unmounts; if that control is gone (its tab closed),
 * to the selected tab.
 */
export function useReturnFocus(opener?: HTMLElement | null): void {
  const [origin] = useState(() => opener ?? focusOrigin());
  useEffect(
    () => () => {
      const target = origin?.isConnected ? origin : document.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]');
      target?.focus();
    },
    [origin],
  );
}
