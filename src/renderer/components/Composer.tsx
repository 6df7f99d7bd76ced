/**
 * The message box. Enter sends, Shift+Enter starts a new line. Files are attached with the
 * paperclip, by dropping them on the box or by pasting them; each shows as a chip, removable
 * until the message is sent (docs/DESIGN.md#attachments). When a turn fails (the model
 * server is down…) the typed message and its files come back, so nothing is lost.
 */
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { MAX_ATTACHMENTS, type Attachment } from '../../shared/attachments';
import { readAttachment } from '../lib/attachments';
import type { ChatSession } from '../state/chat-session';
import { AttachmentChips } from './AttachmentChips';
import { errorMessage } from '../lib/errors';

interface ComposerProps {
  chat: ChatSession;
  busy: boolean;
  disabled: boolean;
}

export function Composer({ chat, busy, disabled }: ComposerProps) {
  const [text, setTextState] = useState(chat.draft);
  const [attachments, setAttachmentsState] = useState(chat.draftAttachments);
  const [dropping, setDropping] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const setText = (value: string) => {
    chat.draft = value;
    setTextState(value);
  };
  const setAttachments = (files: Attachment[]) => {
    chat.draftAttachments = files;
    setAttachmentsState(files);
  };

  /** Reads the files and adds the good ones; each refused one is named in the error line. */
  const attach = async (files: File[]) => {
    if (files.length === 0 || disabled) return;
    const room = MAX_ATTACHMENTS - chat.draftAttachments.length;
    const read = await Promise.allSettled(files.slice(0, Math.max(0, room)).map(readAttachment));
    const problems = read.flatMap((r) => (r.status === 'rejected' ? [errorMessage(r.reason)] : []));
    if (files.length > room) problems.push(`A message can carry at most ${MAX_ATTACHMENTS} files.`);
    setAttachments([...chat.draftAttachments, ...read.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))]);
    if (problems.length) chat.setError(problems.join(' '));
  };
  /** Files dropped on the box are attached; preventDefault tells the window not to import them (state/import-drop.ts). */
  const onDrop = (event: DragEvent) => {
    if (!event.dataTransfer.types.includes('Files') || disabled) return;
    event.preventDefault();
    setDropping(false);
    void attach([...event.dataTransfer.files]);
  };
  const onDragOver = (event: DragEvent) => {
    if (!event.dataTransfer.types.includes('Files') || disabled) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDropping(true);
  };

  useEffect(() => {
    if (!disabled) box.current?.focus();
  }, [disabled]);

  const ready = text.trim().length > 0 || attachments.length > 0;
  const submit = async () => {
    const message = text;
    const files = attachments;
    if (!ready || busy || disabled) return;
    setText('');
    setAttachments([]);
    const ok = await chat.send(message, files);
    // Keep what was typed and attached: put it back unless the user has started a new message.
    if (!ok && chat.draft === '' && chat.draftAttachments.length === 0) {
      setText(message);
      setAttachments(files);
    }
  };

  return (
    <form
      className={`composer${dropping ? ' dropping' : ''}`}
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
      onDragOver={onDragOver}
      onDragLeave={() => setDropping(false)}
      onDrop={onDrop}
    >
      {attachments.length > 0 && <AttachmentChips files={attachments} onRemove={(index) => setAttachments(attachments.filter((_, i) => i !== index))} />}
      <button
        type="button"
        className="icon attach"
        aria-label="Attach files"
        title="Attach text files or images"
        disabled={disabled}
        onClick={() => picker.current?.click()}
      >
        {/* Drawn, not an emoji: a system without an emoji font showed an empty box. */}
        <svg aria-hidden="true" viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
          <path d="M21 12.5l-8.5 8.5a5 5 0 0 1-7-7L14 5.5a3.5 3.5 0 0 1 5 5L10.5 19a2 2 0 0 1-3-3L15 8.5" />
        </svg>
      </button>
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        aria-label="Files to attach"
        onChange={(event) => {
          void attach([...(event.target.files ?? [])]);
          event.target.value = '';
        }}
      />
      <textarea
        ref={box}
        aria-label="Message"
        placeholder={disabled ? '' : 'Message Loom (Enter to send, Shift+Enter for a new line)'}
        value={text}
        disabled={disabled}
        rows={3}
        onChange={(e) => setText(e.target.value)}
        onPaste={(e) => {
          // Pasted files (a screenshot, say) are attached; pasted text goes in as typed.
          const files = [...e.clipboardData.files];
          if (files.length === 0) return;
          e.preventDefault();
          void attach(files);
        }}
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
        <button type="submit" className="primary" disabled={disabled || !ready} aria-keyshortcuts="Enter">
          Send
        </button>
      )}
    </form>
  );
}
