/**
 * One open session: header (title, model, project folder, context meter, changed files, Compact now, Fork, Info, Export;
 * in a narrow window those last under More),
 * the transcript, the turn's error banner and notices, and the message box; the dialogs
 * of its compactions (Compact now's focus line, what a compaction kept and dropped).
 */
import { Suspense, lazy, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { EXPORT_FORMATS } from '../../shared/contract';
import type { CompactionDetail, SessionMeta } from '../../shared/types';
import { compactionCounts } from '../lib/compactions';
import { sessionLabel } from '../lib/format';
import { useBranchPoints } from '../state/branches';
import { isBusy } from '../state/chat-reducer';
import type { ChatSession } from '../state/chat-session';
import { usePins } from '../state/session-records';
import { SubagentsContext, useRunningChild, useSubagentRuns, type SubagentsView } from '../state/subagents';
import { useSessionMeta } from '../state/session-meta';
import { ErrorBanner, TurnProblemBanner } from './Banners';
import { CompactDialog } from './CompactDialog';
import type { MarkerActions } from './CompactionMarkerRow';
import { EXPORT_LABELS, ExportMenu } from './ExportMenu';
import { FindBar, type FindTarget } from './FindBar';
import { MenuButton, type MenuItem } from './MenuButton';
import { Composer } from './Composer';
import { ContextMeter } from './ContextMeter';
import { BranchActionsContext, ContextActionsContext, type BranchActions, type ContextActions } from './MessageActions';
import { SessionAgentButton } from './SessionAgent';
import { SessionModelButton } from './SessionModel';
import { ProjectBanner, ProjectButton, SessionProjectDialog, useSessionProject } from './SessionProject';
import type { SessionAction } from './Sidebar';

/**
 * Loaded on first use: the transcript brings Markdown and code highlighting, most of the
 * window's script, which the sidebar's first rows need not wait for (docs/DESIGN.md#sidebar-paging).
 */
const Transcript = lazy(() => import('./Transcript').then((module) => ({ default: module.Transcript })));
/** Likewise: it shows the summarised messages as the transcript does. */
const CompactionDialog = lazy(() => import('./CompactionDialog').then((module) => ({ default: module.CompactionDialog })));

interface ChatViewProps {
  chat: ChatSession;
  onAction: (action: SessionAction, meta: SessionMeta) => void;
  /** Opens the list of files this session changed (with Revert all / Keep). */
  onShowChanges: () => void;
  /** Opens the settings dialog (a model failure whose fix is there offers it). */
  onOpenSettings: () => void;
  /** The branch actions under the messages (App.tsx carries them out). */
  branching?: BranchHandlers;
  /** Open at this message instead of at the bottom (a sibling branch shown in place, a search hit). */
  scrollToMessage?: number;
  /** The message a search hit opened the session at, shown highlighted. */
  highlightMessage?: number;
  /** Counts the times Ctrl+F was pressed (App.tsx): a change opens the find bar, or focuses it again. */
  findAsked?: number;
  /** Opens a sub-agent's session in a tab beside this one (its card's Open). */
  onOpenChild: (childId: string) => void;
}

/** What the branch actions of a session's messages do, by session id and transcript index. */
export interface BranchHandlers {
  edit(sessionId: string, index: number, text: string): Promise<boolean>;
  regenerate(sessionId: string, index: number): void;
  forkFrom(sessionId: string, index: number): void;
  switchTo(sessionId: string, siblingId: string, index: number): void;
}

export function ChatView({
  chat,
  onAction,
  onShowChanges,
  onOpenSettings,
  branching,
  scrollToMessage,
  highlightMessage,
  findAsked = 0,
  onOpenChild,
}: ChatViewProps) {
  const snap = useSyncExternalStore(chat.subscribe, chat.getSnapshot);
  const busy = isBusy(snap.phase);
  // Read once: the tab opens there, later renders leave the scrolling to the user.
  const [openAt] = useState(scrollToMessage);
  const [highlightAt] = useState(highlightMessage);
  const points = useBranchPoints(chat.id);
  const finding = useFind(findAsked);
  const branchActions = useMemo<BranchActions | null>(
    () =>
      branching
        ? {
            busy,
            points,
            edit: (index, text) => branching.edit(chat.id, index, text),
            regenerate: (index) => branching.regenerate(chat.id, index),
            forkFrom: (index) => branching.forkFrom(chat.id, index),
            switchTo: (id, index) => branching.switchTo(chat.id, id, index),
            lastIndex: snap.total - 1,
            reply: () => void chat.reply(),
          }
        : null,
    [branching, busy, snap.total, points, chat],
  );
  const { meta } = useSessionMeta(chat.id);
  const label = meta ? sessionLabel(meta) : 'Session';
  const archived = meta?.archived ?? false;
  const folder = useSessionProject(meta);
  const [askingFocus, setAskingFocus] = useState(false);
  const [shownCompaction, setShownCompaction] = useState<{ record: CompactionDetail; n: number } | null>(null);
  const pins = usePins(chat.id);
  const contextActions = useMemo<ContextActions>(
    () => ({
      busy: busy || archived,
      pinned: pins.byMessage,
      pin: (index) => void pins.pinMessage(index).catch(chat.showFailure),
      unpin: (pinId) => void pins.unpin(pinId).catch(chat.showFailure),
      compactUpTo: (index) => void chat.compact({ upTo: index }),
    }),
    [busy, archived, pins, chat],
  );
  const markerActions = useMemo<MarkerActions>(
    () => ({ busy, show: (record, n) => setShownCompaction({ record, n }), undo: () => chat.uncompact() }),
    [busy, chat],
  );
  const runs = useSubagentRuns(chat.id);
  const { approvals, questions, version } = snap;
  const subagents = useMemo<SubagentsView>(
    () => ({ runs, approvals, questions, version, resultOf: (callId) => chat.transcript.resultOf(callId), open: onOpenChild }),
    [runs, approvals, questions, version, chat, onOpenChild],
  );
  const childRunning = useRunningChild(chat.id);
  const counts = compactionCounts(snap.markers.flatMap((m) => (m.record ? [m.record] : [])));

  const canCompact = !busy && !archived;
  const compactNow = () => canCompact && setAskingFocus(true);
  const changedLabel = `Changed files (${snap.changedFiles.length})`;
  // The header's actions again, for More: the same ones, in the same order.
  const moreItems: MenuItem[] = [
    ...(snap.changedFiles.length > 0 ? [{ key: 'changes', label: changedLabel, onSelect: onShowChanges }] : []),
    { key: 'compact', label: 'Compact now…', onSelect: compactNow, disabled: !canCompact },
    { key: 'fork', label: 'Fork', onSelect: () => meta && onAction('fork', meta), disabled: !meta },
    { key: 'info', label: 'Info', onSelect: () => meta && onAction('info', meta), disabled: !meta },
    ...EXPORT_FORMATS.map((format) => ({
      key: `export:${format}`,
      label: `Export as ${EXPORT_LABELS[format]}`,
      onSelect: () => meta && onAction(`export:${format}`, meta),
      disabled: !meta,
    })),
  ];

  const last = snap.total > 0 ? chat.transcript.message(snap.total - 1) : undefined;
  const canContinue = last?.role === 'assistant' && last.stopped === true && !busy && !archived;
  return (
    <section className="chat" aria-label={`Chat: ${label}`}>
      <header className="chat-head">
        <h1 className="chat-title" title={label}>
          {label}
        </h1>
        {meta && <SessionModelButton meta={meta} asking={snap.modelToChoose} onAskSettled={() => chat.modelChoiceSettled()} />}
        {meta && <SessionAgentButton meta={meta} />}
        {folder.project && <ProjectButton project={folder.project} onChoose={() => folder.choose(true)} />}
        <ContextMeter tokens={snap.contextTokens} max={snap.maxContextTokens} compactions={counts} />
        {/* A narrow window folds these into More (styles.css, the chat's container query), so the title keeps its room. */}
        <div className="chat-actions">
          {snap.changedFiles.length > 0 && (
            <button type="button" onClick={onShowChanges} title="Files this session wrote or edited: keep them or revert them">
              {changedLabel}
            </button>
          )}
          {/* aria-disabled, not disabled: the focus Compact now's dialog returns here stays while the compaction runs. */}
          <button type="button" onClick={compactNow} aria-disabled={!canCompact} aria-haspopup="dialog">
            Compact now
          </button>
          <button type="button" onClick={() => meta && onAction('fork', meta)} disabled={!meta}>
            Fork
          </button>
          <button type="button" onClick={() => meta && onAction('info', meta)} disabled={!meta}>
            Info
          </button>
          <ExportMenu disabled={!meta} onExport={(format) => meta && onAction(`export:${format}`, meta)} />
        </div>
        <div className="chat-more">
          <MenuButton menuLabel="More actions" items={moreItems}>
            More
          </MenuButton>
        </div>
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
      {finding.open && <FindBar chat={chat} total={snap.total} focusAsked={findAsked} onFind={finding.setTarget} onClose={finding.close} />}
      <BranchActionsContext.Provider value={branchActions}>
        <ContextActionsContext.Provider value={contextActions}>
          <SubagentsContext.Provider value={subagents}>
            <Suspense fallback={<div className="transcript" role="log" aria-label="Transcript" aria-busy="true" />}>
              <Transcript chat={chat} snap={snap} scrollToMessage={openAt} highlightMessage={highlightAt} find={finding.target} markerActions={markerActions} />
            </Suspense>
          </SubagentsContext.Provider>
        </ContextActionsContext.Provider>
      </BranchActionsContext.Provider>
      <div className="chat-foot">
        {snap.phase === 'compacting' && (
          <div className="progress" role="status">
            <span className="spinner" aria-hidden="true" /> Compacting the context…
          </div>
        )}
        {snap.notices.map((notice) => (
          <ErrorBanner key={notice.id} level={notice.level} text={notice.text} onDismiss={() => chat.dismissNotice(notice.id)} />
        ))}
        <TurnProblemBanner error={snap.error} failure={snap.failure} retry={snap.retry} onDismiss={() => chat.setError(null)} onOpenSettings={onOpenSettings} />
        {folder.project && <ProjectBanner project={folder.project} onChoose={() => folder.choose(true)} />}
        {canContinue && (
          <div className="continue-row">
            <button type="button" onClick={() => void chat.continueReply()} title="Ask Loom to go on from where its stopped reply ends">
              Continue
            </button>
          </div>
        )}
        {childRunning && (
          <div className="banner banner-info" role="status">
            <span className="banner-text">A sub-agent is running; this session is read-only until it ends.</span>
          </div>
        )}
        <Composer chat={chat} busy={busy} disabled={archived || childRunning || !snap.loaded} />
      </div>
      {folder.choosing && meta && folder.project && <SessionProjectDialog meta={meta} project={folder.project} onClose={() => folder.choose(false)} />}
      {askingFocus && <CompactDialog onClose={() => setAskingFocus(false)} onCompact={(focus) => void chat.compact({ focus })} />}
      {shownCompaction && (
        <Suspense fallback={null}>
          <CompactionDialog
            sessionId={chat.id}
            record={shownCompaction.record}
            n={shownCompaction.n}
            onClose={() => setShownCompaction(null)}
            onUndo={() => void chat.uncompact()}
          />
        </Suspense>
      )}
    </section>
  );
}

/**
 * The find bar's state: opened when `findAsked` moves (not by the count a view mounts with,
 * which was for another tab), closed with the focus back where it was when it opened.
 */
function useFind(findAsked: number) {
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState<FindTarget | null>(null);
  const seen = useRef(findAsked);
  const returnFocus = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (findAsked === seen.current) return;
    seen.current = findAsked;
    if (!open) returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setOpen(true);
  }, [findAsked, open]);
  const close = () => {
    setOpen(false);
    setTarget(null);
    const back = returnFocus.current?.isConnected ? returnFocus.current : document.querySelector<HTMLElement>('.chat .transcript');
    back?.focus();
  };
  return { open, target, setTarget, close };
}
