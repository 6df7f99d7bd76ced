/**
 * One approval the engine waits on (docs/DESIGN.md#permissions-and-security): what it
 * approves — a file change as a diff, a command whole in monospace, otherwise the engine's
 * summary — why it asks, and the answers: allow once, allow for the rest of the session
 * (what the engine offered: the tool, or a command prefix), deny.
 */
import { useId, useRef } from 'react';
import { describeGrant } from '../../shared/approvals';
import type { RequestOrigin } from '../../shared/engine-events';
import { subagentName } from '../../shared/subagents';
import type { Approval } from '../state/chat-reducer';
import type { ChatSession } from '../state/chat-session';
import { usePromptFocus } from '../lib/focus-return';
import { DiffView } from './DiffView';

export function ApprovalCard({ approval, chat }: { approval: Approval; chat: ChatSession }) {
  const offerId = useId();
  const card = useRef<HTMLDivElement>(null);
  // The card itself takes the focus, not Allow once: an Enter meant for the message box must not approve.
  usePromptFocus(card, approval.requestId, chat.isNewPrompt);
  const { preview, offer } = approval;
  return (
    <div ref={card} className="card approval" role="group" aria-label={`Approval needed: ${approval.tool}${fromChild(approval)}`} tabIndex={-1}>
      <p>
        <strong>{approval.tool}</strong> {heading(approval)}
      </p>
      {preview?.kind === 'file' && <DiffView preview={preview} />}
      {preview?.kind === 'command' && (
        // A region the keyboard can scroll when the command is taller than the box.
        <pre className="card-body command" role="region" aria-label="Command" tabIndex={0}>
          {preview.command}
        </pre>
      )}
      {!preview && <pre className="card-body">{approval.summary}</pre>}
      <p className="policy-label">Why it asks: {approval.label}</p>
      {offer && (
        <p className="grant-offer" id={offerId}>
          Allow for this session: {describeGrant(offer)}, until the session is closed. Session info lists it and takes it back.
        </p>
      )}
      <div className="card-actions">
        <button type="button" className="primary" onClick={() => chat.approve(approval.requestId, 'once')}>
          Allow once
        </button>
        {offer && (
          <button type="button" aria-describedby={offerId} onClick={() => chat.approve(approval.requestId, 'session')}>
            Allow for this session
          </button>
        )}
        <button type="button" className="danger" onClick={() => chat.approve(approval.requestId, 'deny')}>
          Deny
        </button>
      </div>
    </div>
  );
}

/** Whose request it is, when a sub-agent's: two children asking at once are told apart. */
export function fromChild({ subagent }: { subagent?: RequestOrigin }): string {
  return subagent ? `, from the ${subagentName(subagent.agent, subagent.task)}` : '';
}

/** What the tool is about to do, from the preview and the effect the tool declares. */
function heading({ preview, effect }: Approval): string {
  if (preview?.kind === 'file') return `wants to ${preview.newFile ? 'create' : 'change'} ${preview.path}:`;
  if (preview?.kind === 'command') return 'wants to run this command:';
  if (effect === 'network') return 'wants to reach the network:';
  return 'wants to run:';
}
