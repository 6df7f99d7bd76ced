/**
 * A button that opens a menu of actions under it (the chat header's Export and More, the
 * tab strip's list of tabs). The first item takes the focus; arrow keys, Home and End move;
 * Escape, Tab or a click elsewhere closes it. Choosing an item closes the menu and gives the
 * focus back to the button before the item runs, so a dialog it opens returns there too.
 */
import { useEffect, useRef, useState, type ButtonHTMLAttributes, type KeyboardEvent, type ReactNode } from 'react';

export interface MenuItem {
  key: string;
  label: ReactNode;
  onSelect: () => void;
  disabled?: boolean;
  /** Set for a choice of one among many (which tab is in front): the item is a menuitemradio. */
  checked?: boolean;
}

interface MenuButtonProps {
  /** What the button shows. */
  children: ReactNode;
  /** The menu's accessible name. */
  menuLabel: string;
  items: MenuItem[];
  disabled?: boolean;
  /** The button's other attributes: its name, class, title. */
  button?: Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick' | 'disabled' | 'type'>;
}

export function MenuButton({ children, menuLabel, items, disabled, button: buttonProps }: MenuButtonProps) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  useEffect(() => {
    if (!open) return;
    const first = menu.current?.querySelector<HTMLButtonElement>('[aria-checked="true"]:not(:disabled)') ?? enabledItems(menu.current)[0];
    first?.focus();
    const onDown = (event: MouseEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    window.addEventListener('mousedown', onDown);
    return () => window.removeEventListener('mousedown', onDown);
  }, [open]);

  const onKeyDown = (event: KeyboardEvent) => {
    const list = enabledItems(menu.current);
    const at = list.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Tab') return setOpen(false);
    if (event.key === 'Escape') close(true);
    else if (event.key === 'ArrowDown') list[(at + 1) % list.length]?.focus();
    else if (event.key === 'ArrowUp') list[(at - 1 + list.length) % list.length]?.focus();
    else if (event.key === 'Home') list[0]?.focus();
    else if (event.key === 'End') list.at(-1)?.focus();
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  const box = button.current?.getBoundingClientRect();
  return (
    <>
      <button ref={button} type="button" {...buttonProps} aria-haspopup="menu" aria-expanded={open} disabled={disabled} onClick={() => setOpen(!open)}>
        {children}
      </button>
      {open && box && (
        <div
          ref={menu}
          className="menu"
          role="menu"
          aria-label={menuLabel}
          style={{ right: Math.max(4, window.innerWidth - box.right), top: box.bottom + 4 }}
          onKeyDown={onKeyDown}
        >
          {items.map((item) => (
            <button
              key={item.key}
              type="button"
              role={item.checked === undefined ? 'menuitem' : 'menuitemradio'}
              aria-checked={item.checked}
              disabled={item.disabled}
              onClick={() => {
                close(true);
                item.onSelect();
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </>
  );
}

function enabledItems(menu: HTMLElement | null): HTMLButtonElement[] {
  return [...(menu?.querySelectorAll<HTMLButtonElement>('[role^=menuitem]:not(:disabled)') ?? [])];
}
