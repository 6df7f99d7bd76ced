/**
 * A modal dialog on the native <dialog> element: it traps focus, Escape (the `cancel`
 * event) closes it doing nothing else, and once closed the focus is back on the control
 * that opened it.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useReturnFocus } from '../lib/focus-return';

export function Dialog({ title, onClose, children, className }: { title: string; onClose: () => void; children: ReactNode; className?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useReturnFocus();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal();
    const onCancel = (event: Event) => {
      event.preventDefault();
      onClose();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => dialog.removeEventListener('cancel', onCancel);
  }, [onClose]);

  return (
    <dialog ref={ref} className={`dialog ${className ?? ''}`} aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
