/**
 * The part of the turn still happening: the reply streaming in, the tools running, and
 * what the engine waits for — approvals (ApprovalCard: what they approve, allow once / for the session / deny) and
 * questions from ask_question — answered right here in the transcript; a sub-agent's are
 * named by its agent and task, and answer that child only.
 */
import { useDeferredValue, useRef, useState } from 'react';
import { RUN_SUBAGENT } from '../../shared/subagents';
import { usePromptFocus } from '../lib/focus-return';
import { waitingText } from '../state/attention';
import type { Question } from '../state/chat-reducer';
import type { ChatSession, ChatSnapshot } from '../state/chat-session';
import { ApprovalCard, fromChild } from './ApprovalCard';
import { Markdown } from './Markdown';

export function LiveRow({ chat, snap }: { chat: ChatSession; snap: ChatSnapshot }) {
  // Deferred so fast deltas do not re-render Markdown on every one; but once the reply is
  // committed (streaming cleared) the stale deferred copy must not linger beside it.
  const deferred = useDeferredValue(snap.streaming);
  const streaming = snap.streaming ? deferred : '';
  const waitsFor = waitingText(snap);
  const waiting = snap.phase === 'running' && !streaming && snap.runningTools.length === 0 && snap.approvals.length === 0 && snap.questions.length === 0;
  // Each sub-agent has its card (SubagentCard) with its own status: one line says they work.
  const subagents = snap.runningTools.filter((tool) => tool.name === RUN_SUBAGENT).length;
  const tools = snap.runningTools.filter((tool) => tool.name !== RUN_SUBAGENT);
  return (
    <div className="live">
      {streaming && (
        <article className="msg msg-assistant streaming" aria-label="Assistant (replying)">
          <div className="msg-who">Loom</div>
          <Markdown text={streaming} />
        </article>
      )}
      {waitsFor ? (
        // The tool waits on the user, not the user on the tool: say so rather than "Running write_file…".
        <div className="progress waits-for-you" role="status">
          {waitsFor}
        </div>
      ) : (
        <>
          {tools.map((tool) => (
            <div key={tool.callId} className="progress" role="status">
              <span className="spinner" aria-hidden="true" /> Running <code>{tool.name}</code>…
            </div>
          ))}
          {subagents > 0 && (
            <div className="progress" role="status">
              <span className="spinner" aria-hidden="true" /> {subagents === 1 ? 'A sub-agent is working…' : `${subagents} sub-agents are working…`}
            </div>
          )}
        </>
      )}
      {snap.approvals.map((approval) => (
        <ApprovalCard key={approval.requestId} approval={approval} chat={chat} />
      ))}
      {snap.questions.map((question) => (
        <QuestionCard key={question.requestId} question={question} chat={chat} />
      ))}
      {waiting && (
        <div className="progress" role="status">
          <span className="spinner" aria-hidden="true" /> Waiting for the model…
        </div>
      )}
    </div>
  );
}

function QuestionCard({ question, chat }: { question: Question; chat: ChatSession }) {
  const [text, setText] = useState('');
  const card = useRef<HTMLDivElement>(null);
  usePromptFocus(card, question.requestId, chat.isNewPrompt);
  const answer = (value: string | null) => chat.answer(question.requestId, value);
  return (
    <div ref={card} className="card question" role="group" aria-label={question.subagent ? `Question${fromChild(question)}` : 'Question from the assistant'}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim()) answer(text);
        }}
      >
        <p className="question-text">{question.question}</p>
        <input aria-label="Your answer" value={text} onChange={(e) => setText(e.target.value)} />
        <div className="card-actions">
          <button type="submit" className="primary" disabled={!text.trim()}>
            Answer
          </button>
          <button type="button" onClick={() => answer(null)}>
            Skip
          </button>
        </div>
      </form>
    </div>
  );
}
