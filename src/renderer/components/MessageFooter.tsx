/**
 * The line under a message of yours or a reply (docs/DESIGN.md#per-message-facts): its
 * facts, always shown (not on hover, so they read the same by keyboard and screen reader),
 * and its copy buttons: as Markdown (the text as written) or as plain text (lib/plain-text).
 */
import type { AssistantMessage, MessageFacts, UserMessage } from '../../shared/types';
import { userText } from '../lib/display';
import { factParts } from '../lib/format';
import { markdownToPlainText } from '../lib/plain-text';
import { CopyButton } from './CopyButton';

export function MessageFooter({ message, facts }: { message: UserMessage | AssistantMessage; facts: MessageFacts | null | undefined }) {
  const markdown = message.role === 'user' ? userText(message.content) : (message.content ?? '');
  if (!facts && !markdown) return null;
  return (
    <div className="msg-foot">
      {facts && <span className="msg-facts">{factParts(facts).join(' · ')}</span>}
      {markdown && (
        <span className="msg-copy">
          <CopyButton label="Copy" name="Copy message as Markdown" text={() => markdown} />
          <CopyButton label="Copy text" name="Copy text of the message" text={() => markdownToPlainText(markdown)} />
        </span>
      )}
    </div>
  );
}
