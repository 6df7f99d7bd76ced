/**
 * The message box. Enter sends, Shift+Enter starts a new line. When a turn fails (the
 * model server is down…) the typed message comes back into the box, so nothing is lost.
 */
import { useEffect, useRef, useState } from 'react';
import type { ChatSession } from '../state/chat-session';

interface ComposerProps {
  chat: ChatSession;
  busy: boolean;
  disabled: boolean;
}

export function Composer({ chat, busy, disabled }: ComposerProps) {
  const [text, setTextState] = useState(chat.draft);
  const box = useRef<HTMLTextAreaElement>(null);
  const setText = (value: string) => {
    chat.draft = value;
    setTextState(value);
  };

  useEffect(() => {
    if (!disabled) box.current?.focus();
  }, [disabled]);

  const submit = async () => {
    const message = text;
    if (!message.trim() || busy || disabled) return;
    setText('');
    const ok = await chat.send(message);
    // Keep what was typed: put it back unless the user has started typing something new.
    if (!ok && chat.draft === '') setText(message);
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <textarea
        ref={box}
        aria-label="Message"
        placeholder={disabled ? '' : 'Message Loom (Enter to send, Shift+Enter for a new line)'}
        value={text}
        disabled={disabled}
        rows={3}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void submit();
          }
        }}
      />
      {busy ? (
        <button type="button" className="danger" onClick={() => chat.stop()}>
          Stop
        </button>
      ) : (
        <button type="submit" className="primary" disabled={disabled || !text.trim()} aria-keyshortcuts="Enter">
          Send
        </button>
      )}
    </form>
  );
}
