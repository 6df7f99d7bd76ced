/**
 * Focus goes back where it came from when a dialog or menu closes (by Escape, a button, a
 * click elsewhere), never to the page body. A dialog opened from a menu's item returns to
 * the control that opened the menu, since the item is gone by then.
 */
import { useEffect, useState, type RefObject } from 'react';

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

/**
 * A prompt that just arrived (an approval card, a question) takes the focus, so the keyboard
 * and a screen reader are at it at once, unless a dialog holds the focus; once it is
 * answered (gone, with the focus inside it) the focus goes back to where it was, the
 * message box say. `isNew` says no for a prompt shown before (scrolled back into view, its
 * tab shown again): that one leaves the focus where it is.
 */
export function usePromptFocus(ref: RefObject<HTMLElement | null>, requestId: string, isNew: (requestId: string) => boolean): void {
  useEffect(() => {
    const prompt = ref.current;
    if (!prompt || !isNew(requestId) || document.activeElement?.closest('[role="dialog"]')) return;
    const origin = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    (prompt.querySelector<HTMLElement>('input') ?? prompt).focus({ preventScroll: true });
    return () => {
      // Gone with the focus in it, the focus is on the body now; one the user moved elsewhere stays there.
      const lost = document.activeElement === null || document.activeElement === document.body || prompt.contains(document.activeElement);
      if (lost && origin?.isConnected) origin.focus({ preventScroll: true });
    };
  }, [ref, requestId, isNew]);
}
