/**
 * The per-session action menu (from the ⋯ button or a right click): arrow keys move,
 * Escape or a click elsewhere closes it.
 */
import { useEffect, useRef, type KeyboardEvent } from 'react';
import type { SessionMeta } from '../../shared/types';
import { registerMenuOpener, useReturnFocus } from '../lib/focus-return';
import { sessionLabel } from '../lib/format';
import type { SessionAction } from './Sidebar';

export function SessionMenu({
  meta,
  x,
  y,
  opener,
  canShare,
  onAction,
  onClose,
}: {
  meta: SessionMeta;
  x: number;
  y: number;
  /** The control focus returns to when the menu closes (the row's ⋯ button, also after a right click). */
  opener: HTMLElement | null;
  /** A sync hub is set: "Share with…" is offered. */
  canShare: boolean;
  onAction: (action: SessionAction, meta: SessionMeta) => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useReturnFocus(opener);
  const items: [SessionAction, string][] = [
    ['open', 'Open'],
    ['rename', 'Rename…'],
    ['fork', 'Fork'],
    [meta.pinned ? 'unpin' : 'pin', meta.pinned ? 'Unpin' : 'Pin to top'],
    [meta.archived ? 'unarchive' : 'archive', meta.archived ? 'Unarchive' : 'Archive'],
    ['export:json', 'Export as JSON'],
    ['export:markdown', 'Export as Markdown'],
    ['export:html', 'Export as HTML'],
    ['info', 'Info'],
    ...(canShare ? [['share', 'Share with…'] as [SessionAction, string]] : []),
    ['delete', 'Delete…'],
  ];

  useEffect(() => {
    if (ref.current && opener) registerMenuOpener(ref.current, opener);
    ref.current?.querySelector<HTMLButtonElement>('[role=menuitem]')?.focus();
    const onDown = (event: MouseEvent) => {
      if (!ref.current?.contains(event.target as Node)) onClose();
    };
    window.addEventListener('mousedown', onDown);
    return () => window.removeEventListener('mousedown', onDown);
  }, [onClose, opener]);

  const onKeyDown = (event: KeyboardEvent) => {
    const buttons = [...(ref.current?.querySelectorAll<HTMLButtonElement>('[role=menuitem]') ?? [])];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape') onClose();
    else if (event.key === 'ArrowDown') buttons[(at + 1) % buttons.length]?.focus();
    else if (event.key === 'ArrowUp') buttons[(at - 1 + buttons.length) % buttons.length]?.focus();
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  return (
    <div
      ref={ref}
      className="menu"
      role="menu"
      aria-label={`Actions for ${sessionLabel(meta)}`}
      style={{ left: Math.min(x, window.innerWidth - 200), top: Math.min(y, window.innerHeight - 300) }}
      onKeyDown={onKeyDown}
    >
      {items.map(([action, label]) => (
        <button
          key={action}
          type="button"
          role="menuitem"
          className={action === 'delete' ? 'danger-text' : undefined}
          onClick={() => {
            onClose();
            onAction(action, meta);
          }}
        >
          {label}
        </button>
      ))}
    </div>
  );
}
