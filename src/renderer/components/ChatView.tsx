/**
 * One open session: header (title, context meter, changed files, Compact now, Fork, Info),
 * the transcript, the turn's error banner and notices, and the message box.
 */
import { Suspense, lazy, useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { LoomBridge } from '../../shared/contract';
import type { SessionMeta } from '../../shared/types';
import { sessionLabel } from '../lib/format';
import { useBranchPoints } from '../state/branches';
import type { ChatSession } from '../state/chat-session';
import { ErrorBanner } from './Banners';
import { Composer } from './Composer';
import { ContextMeter } from './ContextMeter';
import { BranchActionsContext, type BranchActions } from './MessageActions';
import type { SessionAction } from './Sidebar';

/**
 * Loaded on first use: the transcript brings Markdown and code highlighting, most of the
 * window's script, which the sidebar's first rows need not wait for (docs/DESIGN.md#sidebar-paging).
 */
const Transcript = lazy(() => import('./Transcript').then((module) => ({ default: module.Transcript })));

/**
 * What Continue sends: a user message after the stopped reply. Re-asking with the context
 * ending on an assistant message is not a valid request for every server (some refuse it,
 * some start a fresh reply), while this keeps user and assistant turns alternating.
 */
const CONTINUE_MESSAGE = 'Continue from where you stopped.';

interface ChatViewProps {
  bridge: LoomBridge;
  chat: ChatSession;
  onAction: (action: SessionAction, meta: SessionMeta) => void;
  /** Opens the list of files this session changed (with Revert all / Keep). */
  onShowChanges: () => void;
  /** The branch actions under the messages (App.tsx carries them out). */
  branching?: BranchHandlers;
  /** Open at this message instead of at the bottom (a sibling branch shown in place, a search hit). */
  scrollToMessage?: number;
  /** The message a search hit opened the session at, shown highlighted. */
  highlightMessage?: number;
}

/** What the branch actions of a session's messages do, by session id and transcript index. */
export interface BranchHandlers {
  edit(sessionId: string, index: number, text: string): Promise<boolean>;
  regenerate(sessionId: string, index: number): void;
  forkFrom(sessionId: string, index: number): void;
  switchTo(sessionId: string, siblingId: string, index: number): void;
}

export function ChatView({ bridge, chat, onAction, onShowChanges, branching, scrollToMessage, highlightMessage }: ChatViewProps) {
  const snap = useSyncExternalStore(chat.subscribe, chat.getSnapshot);
  // Read once: the tab opens there, later renders leave the scrolling to the user.
  const [openAt] = useState(scrollToMessage);
  const [highlightAt] = useState(highlightMessage);
  const points = useBranchPoints(bridge, chat.id);
  const branchActions = useMemo<BranchActions | null>(
    () =>
      branching
        ? {
            busy: snap.busy,
            points,
            edit: (index, text) => branching.edit(chat.id, index, text),
            regenerate: (index) => branching.regenerate(chat.id, index),
            forkFrom: (index) => branching.forkFrom(chat.id, index),
            switchTo: (id, index) => branching.switchTo(chat.id, id, index),
            lastIndex: snap.total - 1,
            reply: () => {
              chat.setError(null);
              bridge.invoke('chat.reply', { sessionId: chat.id }).then(
                ({ error }) => error && chat.setError(error),
                (err: Error) => chat.setError(err.message),
              );
            },
          }
        : null,
    [branching, snap.busy, snap.total, points, chat, bridge],
  );
  const meta = useSessionMeta(bridge, chat.id);
  const label = meta ? sessionLabel(meta) : 'Session';

  const send = useCallback(
    async (text: string): Promise<boolean> => {
      chat.setError(null);
      try {
        const { error } = await bridge.invoke('chat.send', { sessionId: chat.id, text });
        if (error) chat.setError(error);
        return error === null;
      } catch (err) {
        chat.setError((err as Error).message);
        return false;
      }
    },
    [bridge, chat],
  );

  const compact = async () => {
    chat.setCompacting(true);
    try {
      await bridge.invoke('chat.compact', { sessionId: chat.id });
    } catch (err) {
      chat.setError((err as Error).message);
    } finally {
      chat.setCompacting(false);
    }
  };

  const archived = meta?.archived ?? false;
  const last = snap.total > 0 ? chat.message(snap.total - 1) : undefined;
  const canContinue = last?.role === 'assistant' && last.stopped === true && !snap.busy && !archived;
  return (
    <section className="chat" aria-label={`Chat: ${label}`}>
      <header className="chat-head">
        <h1 className="chat-title" title={label}>
          {label}
        </h1>
        <ContextMeter tokens={snap.contextTokens} max={snap.maxContextTokens} />
        {snap.changedFiles.length > 0 && (
          <button type="button" onClick={onShowChanges} title="Files this session wrote or edited: keep them or revert them">
            Changed files ({snap.changedFiles.length})
          </button>
        )}
        <button type="button" onClick={() => void compact()} disabled={snap.busy || snap.compacting || archived}>
          Compact now
        </button>
        <button type="button" onClick={() => meta && onAction('fork', meta)} disabled={!meta}>
          Fork
        </button>
        <button type="button" onClick={() => meta && onAction('info', meta)} disabled={!meta}>
          Info
        </button>
      </header>
      {archived && meta && (
        <div className="banner banner-info" role="status">
          <span className="banner-text">This session is archived. Unarchive it to continue.</span>
          <button type="button" onClick={() => onAction('unarchive', meta)}>
            Unarchive
          </button>
        </div>
      )}
      {snap.loadError && <ErrorBanner text={snap.loadError} onDismiss={() => void chat.load()} />}
      <BranchActionsContext.Provider value={branchActions}>
        <Suspense fallback={<div className="transcript" role="log" aria-label="Transcript" aria-busy="true" />}>
          <Transcript bridge={bridge} chat={chat} snap={snap} scrollToMessage={openAt} highlightMessage={highlightAt} />
        </Suspense>
      </BranchActionsContext.Provider>
      <div className="chat-foot">
        {snap.compacting && (
          <div className="progress" role="status">
            <span className="spinner" aria-hidden="true" /> Compacting the context…
          </div>
        )}
        {snap.notices.map((notice) => (
          <ErrorBanner key={notice.id} level={notice.level} text={notice.text} onDismiss={() => chat.dismissNotice(notice.id)} />
        ))}
        {snap.error && <ErrorBanner text={snap.error} onDismiss={() => chat.setError(null)} />}
        {canContinue && (
          <div className="continue-row">
            <button type="button" onClick={() => void send(CONTINUE_MESSAGE)} title="Ask Loom to go on from where its stopped reply ends">
              Continue
            </button>
          </div>
        )}
        <Composer
          chat={chat}
          busy={snap.busy}
          disabled={archived || !snap.loaded}
          onSend={send}
          onStop={() => void bridge.invoke('chat.stop', { sessionId: chat.id }).catch((err: Error) => chat.setError(err.message))}
        />
      </div>
    </section>
  );
}

/** The session's metadata, kept current by its change events. */
function useSessionMeta(bridge: LoomBridge, id: string): SessionMeta | null {
  const [meta, setMeta] = useState<SessionMeta | null>(null);
  useEffect(() => {
    bridge.invoke('sessions.info', { id }).then(setMeta, () => {});
    return bridge.onEvent((event) => {
      if (event.type === 'session_changed' && event.sessionId === id) setMeta(event.meta);
    });
  }, [bridge, id]);
  return meta;
}
