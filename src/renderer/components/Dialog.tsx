/**
 * A modal dialog on the native <dialog> element: it traps focus, Escape (the `cancel`
 * event) closes it doing nothing else, and once closed the focus is back on the control
 * that opened it.
 */
import { useEffect, useId, useRef, type ReactNode, type RefObject } from 'react';
import { useReturnFocus } from '../lib/focus-return';

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  className?: string;
  /**
   * Focused once the dialog is open. React's autoFocus runs before showModal(), which then
   * focuses the first control: where that one acts (an Undo before the Close), name the control to start on.
   */
  initialFocus?: RefObject<HTMLElement | null>;
}

export function Dialog({ title, onClose, children, className, initialFocus }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useReturnFocus();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) {
      dialog.showModal();
      initialFocus?.current?.focus();
    }
    const onCancel = (event: Event) => {
      event.preventDefault();
      onClose();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => dialog.removeEventListener('cancel', onCancel);
  }, [onClose, initialFocus]);

  return (
    <dialog ref={ref} className={`dialog ${className ?? ''}`} aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
