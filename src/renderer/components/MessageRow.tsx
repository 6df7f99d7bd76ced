/**
 * One transcript message: the user's words as typed, the assistant's reply as Markdown
 * (raw HTML shown as text), each tool call as a collapsible card with its arguments (a
 * run_subagent call as a sub-agent card), each tool result as a collapsible card, the
 * system prompt folded away. Under yours and the replies: their facts and copy buttons
 * (MessageFooter).
 */
import { memo, useMemo, type ReactNode } from 'react';
import { RUN_SUBAGENT } from '../../shared/subagents';
import type { ChatMessage, MessageFacts, ToolCall, UserMessage } from '../../shared/types';
import { prettyArguments, toolText, userParts } from '../lib/display';
import { inlineImageSrc } from '../../shared/markdown';
import { CopyButton } from './CopyButton';
import { Markdown } from './Markdown';
import { MessageFooter } from './MessageFooter';
import { SubagentCard } from './SubagentCard';

interface MessageRowProps {
  message: ChatMessage;
  /** What the store recorded with the message (none for older messages). */
  facts?: MessageFacts | null;
  toolName?: string;
  /** Shown at the end of the message (its branch actions, MessageActions.tsx). */
  children?: ReactNode;
}

export const MessageRow = memo(function MessageRow({ message, facts, toolName, children }: MessageRowProps) {
  switch (message.role) {
    case 'system':
      return (
        <details className="msg msg-system">
          <summary>System prompt</summary>
          <pre>{message.content}</pre>
        </details>
      );
    case 'user':
      return (
        <article className="msg msg-user" aria-label="You">
          <div className="msg-who">You</div>
          <UserContent content={message.content} />
          <MessageFooter message={message} facts={facts} />
          {children}
        </article>
      );
    case 'assistant':
      return (
        <article className="msg msg-assistant" aria-label={message.stopped ? 'Assistant (stopped)' : 'Assistant'}>
          <div className="msg-who">Loom</div>
          {message.content ? <Markdown text={message.content} /> : null}
          {message.tool_calls?.map((call) =>
            call.function.name === RUN_SUBAGENT ? <SubagentCard key={call.id} call={call} /> : <ToolCallCard key={call.id} call={call} />,
          )}
          {message.stopped && <div className="msg-stopped">Stopped by you{message.content ? '' : ' before any text arrived'}.</div>}
          <MessageFooter message={message} facts={facts} />
          {children}
        </article>
      );
    case 'tool':
      // One column for the card and its actions, so "Fork from here" lines up with the card.
      return (
        <div className="msg-tool">
          <ToolResultCard name={toolName} content={message.content} />
          {children}
        </div>
      );
  }
});

/** The user's words, then each attached text file as a card (its name, the content folded) and each image as a thumbnail. */
function UserContent({ content }: { content: UserMessage['content'] }) {
  const { text, files, images } = useMemo(() => userParts(content), [content]);
  return (
    <>
      {text && <div className="msg-text">{text}</div>}
      {files.map((file, i) => (
        <details key={i} className="card attached-file" aria-label={`Attached file ${file.name}`}>
          <summary>
            <span className="card-kind">File</span> <code>{file.name}</code>
          </summary>
          <pre className="card-body">{file.text}</pre>
        </details>
      ))}
      {images.length > 0 && (
        <div className="msg-images">
          {images.map((url, i) => {
            // Raster data URLs only, as for a reply's images (shared/markdown.ts).
            const src = inlineImageSrc(url);
            return src && <img key={i} className="thumb" src={src} alt={`Attached image ${i + 1}`} />;
          })}
        </div>
      )}
    </>
  );
}

function ToolCallCard({ call }: { call: ToolCall }) {
  const args = useMemo(() => prettyArguments(call.function.arguments), [call.function.arguments]);
  return (
    <details className="card tool-call">
      <summary>
        <span className="card-kind">Tool call</span> <code>{call.function.name}</code>
      </summary>
      <pre className="card-body">{args}</pre>
    </details>
  );
}

function ToolResultCard({ name, content }: { name?: string; content: string }) {
  const text = useMemo(() => toolText(content), [content]);
  const [line = ''] = text.split('\n', 1);
  const firstLine = line.slice(0, 120);
  return (
    <details className="card tool-result" aria-label={`Result of ${name ?? 'tool'}`}>
      <summary>
        <span className="card-kind">Result</span> <code>{name ?? 'tool'}</code> <span className="card-preview">{firstLine}</span>
      </summary>
      <pre className="card-body">{text}</pre>
      <div className="result-actions">
        <CopyButton label="Copy" name={`Copy result of ${name ?? 'tool'}`} text={() => text} />
      </div>
    </details>
  );
}

export function PlaceholderRow() {
  return <div className="msg msg-placeholder" aria-hidden="true" />;
}
