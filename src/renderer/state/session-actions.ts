/**
 * What the window does to a session: the session menu's actions (the sidebar's and the
 * chat's), the branch workflow (edit, regenerate, fork from here, switch version) and
 * reverting its changed files. One path each: every fork opens beside its parent, every
 * revert goes through the session's chat controller (which says what it put back).
 */
import { useCallback, useEffect, useMemo, useRef } from 'react';
import type { ExportFormat, LoomBridge } from '../../shared/contract';
import type { SessionMeta } from '../../shared/types';
import type { BranchHandlers } from '../components/ChatView';
import type { SessionAction } from '../components/Sidebar';
import { downloadText } from '../lib/download';
import { errorMessage } from '../lib/errors';
import { sessionLabel } from '../lib/format';
import type { ChatSessions } from './chat-sessions';
import type { useTabs } from './tabs';

/** The actions that open a dialog about the session: the window shows those. */
export type DialogAction = Extract<SessionAction, 'rename' | 'delete' | 'info' | 'share'>;

interface SessionActionsOptions {
  bridge: LoomBridge;
  chats: ChatSessions;
  tabs: ReturnType<typeof useTabs>;
  /** Runs a user action; a failure becomes a banner. */
  attempt: <T>(action: () => Promise<T>) => Promise<T | undefined>;
  showDialog: (action: DialogAction, meta: SessionMeta) => void;
  /** Offers to undo what was just done (components/UndoNotice.tsx). */
  offerUndo: (text: string, undo: () => Promise<void>) => void;
}

export function useSessionActions({ bridge, chats, tabs, attempt, showDialog, offerUndo }: SessionActionsOptions) {
  /** Where a tab shown in place opens: session id → message index (read once by its ChatView). */
  const scrollTargets = useRef(new Map<string, number>());
  useEffect(() => {
    if (tabs.active) scrollTargets.current.delete(tabs.active);
  }, [tabs.active]);
  const scrollTargetFor = useCallback((id: string) => scrollTargets.current.get(id), []);

  /** A fork of the session (of its first `at` messages; default all), opened beside it, where the user looks for it. */
  const fork = useCallback(
    async (id: string, at?: number) => {
      const made = await attempt(() => bridge.invoke('sessions.fork', { id, ...(at === undefined ? {} : { at }) }));
      if (made) tabs.open(made.id, id);
    },
    [attempt, bridge, tabs],
  );

  /** Reverts a session's changed files; resolves to the reason when the engine refuses. */
  const revert = useCallback(
    async (id: string): Promise<string | null> => {
      try {
        await chats.get(id).revertChanges();
        return null;
      } catch (err) {
        return errorMessage(err);
      }
    },
    [chats],
  );

  /**
   * A new branch (edit, regenerate) takes `from`'s tab once its view has loaded (so it sees
   * the whole turn), then the model answers it there.
   */
  const answerInBranch = useCallback(
    async (from: string, branchId: string) => {
      const chat = await chats.loaded(branchId);
      tabs.replace(from, branchId);
      await chat.reply();
    },
    [chats, tabs],
  );

  const branching = useMemo<BranchHandlers>(
    () => ({
      edit: async (sessionId, index, text) => {
        const branch = await attempt(() => chats.get(sessionId).edit(index, text));
        if (!branch) return false;
        void answerInBranch(sessionId, branch.id);
        return true;
      },
      // Fire and forget from a button: attempt() shows any failure as a banner.
      regenerate: (sessionId, index) => {
        void attempt(async () => {
          const branch = await chats.get(sessionId).regenerate(index);
          await answerInBranch(sessionId, branch.id);
        });
      },
      forkFrom: (sessionId, index) => void fork(sessionId, index + 1),
      switchTo: (sessionId, siblingId, index) => {
        scrollTargets.current.set(siblingId, index);
        tabs.replace(sessionId, siblingId);
      },
    }),
    [attempt, chats, tabs, answerInBranch, fork],
  );

  // Handlers fire and forget it: attempt() shows every failure as a banner.
  const run = useCallback(
    async (action: SessionAction, meta: SessionMeta) => {
      switch (action) {
        case 'open':
          return tabs.open(meta.id);
        case 'rename':
        case 'delete':
        case 'info':
        case 'share':
          return showDialog(action, meta);
        case 'fork':
          return fork(meta.id);
        case 'archive':
        case 'unarchive':
          if (!(await attempt(() => bridge.invoke(action === 'archive' ? 'sessions.archive' : 'sessions.unarchive', { id: meta.id })))) return;
          if (action === 'archive') {
            offerUndo(`Archived "${sessionLabel(meta)}".`, async () => {
              await attempt(() => bridge.invoke('sessions.unarchive', { id: meta.id }));
            });
          }
          return;
        case 'pin':
        case 'unpin':
          await attempt(() => bridge.invoke(action === 'pin' ? 'sessions.pin' : 'sessions.unpin', { id: meta.id }));
          return;
        case 'export:json':
        case 'export:markdown':
        case 'export:html': {
          const format = action.slice('export:'.length) as ExportFormat;
          const file = await attempt(() => bridge.invoke('sessions.export', { id: meta.id, format }));
          if (file) downloadText(file.filename, file.mimeType, file.text);
          return;
        }
      }
    },
    [attempt, bridge, tabs, fork, showDialog, offerUndo],
  );

  return { run, branching, revert, scrollTargetFor };
}
