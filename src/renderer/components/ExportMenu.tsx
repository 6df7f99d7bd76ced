/**
 * The chat header's Export button: a menu of the three export formats. Arrow keys move,
 * Escape or a click elsewhere closes it and focus goes back to the button.
 */
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { EXPORT_FORMATS, type ExportFormat } from '../../shared/contract';

const LABELS: Record<ExportFormat, string> = { json: 'JSON (can be imported)', markdown: 'Markdown', html: 'HTML' };

export function ExportMenu({ disabled, onExport }: { disabled: boolean; onExport: (format: ExportFormat) => void }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLButtonElement>('[role=menuitem]')?.focus();
    const onDown = (event: MouseEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    window.addEventListener('mousedown', onDown);
    return () => window.removeEventListener('mousedown', onDown);
  }, [open]);

  const onKeyDown = (event: KeyboardEvent) => {
    const items = [...(menu.current?.querySelectorAll<HTMLButtonElement>('[role=menuitem]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape') close(true);
    else if (event.key === 'ArrowDown') items[(at + 1) % items.length]?.focus();
    else if (event.key === 'ArrowUp') items[(at - 1 + items.length) % items.length]?.focus();
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  const box = button.current?.getBoundingClientRect();
  return (
    <>
      <button ref={button} type="button" aria-haspopup="menu" aria-expanded={open} disabled={disabled} onClick={() => setOpen(!open)}>
        Export
      </button>
      {open && box && (
        <div
          ref={menu}
          className="menu"
          role="menu"
          aria-label="Export as"
          style={{ right: window.innerWidth - box.right, top: box.bottom + 4 }}
          onKeyDown={onKeyDown}
        >
          {EXPORT_FORMATS.map((format) => (
            <button
              key={format}
              type="button"
              role="menuitem"
              onClick={() => {
                close(true);
                onExport(format);
              }}
            >
              {LABELS[format]}
            </button>
          ))}
        </div>
      )}
    </>
  );
}
