/**
 * A button that puts text on the clipboard (navigator.clipboard.writeText) and says so:
 * its label reads "Copied" for a moment, and a status line tells screen readers. A refused
 * write says "Copy failed" the same way; nothing else changes.
 */
import { useEffect, useRef, useState } from 'react';

/** How long the confirmation stays. */
const CONFIRM_MS = 2000;

type CopyState = 'idle' | 'copied' | 'failed';

/** `text` is called on click, so a long message is turned into text only when copied. */
export function CopyButton({ text, label, name }: { text: () => string; label: string; name: string }) {
  const [state, setState] = useState<CopyState>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  const show = (next: CopyState) => {
    setState(next);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setState('idle'), CONFIRM_MS);
  };
  const copy = () => {
    navigator.clipboard.writeText(text()).then(
      () => show('copied'),
      () => show('failed'),
    );
  };

  return (
    <>
      <button type="button" className="small copy" aria-label={state === 'idle' ? name : undefined} onClick={copy}>
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
      </button>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? `${name}: copied` : state === 'failed' ? `${name}: the clipboard refused it` : ''}
      </span>
    </>
  );
}
