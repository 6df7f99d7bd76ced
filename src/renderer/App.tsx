/**
 * The window: the session sidebar, the tab bar with one chat per open session, the
 * dialogs, and the global shortcuts. Open tabs are saved in the settings so they come
 * back after a restart or a reload.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { flushSync } from 'react-dom';
import { IMPORT_MAX_BODY_BYTES, type AppInfo, type Settings } from '../shared/contract';
import type { SessionMeta } from '../shared/types';
import { mcpProblems } from '../shared/mcp';
import { unlinkedNote } from '../shared/subagents';
import { Banners, useBanners } from './components/Banners';
import { ChangesDialog } from './components/ChangesDialog';
import { ChatView } from './components/ChatView';
import { DeleteDialog } from './components/DeleteDialog';
import { ImportFromDialog } from './components/ImportFromDialog';
import { ProjectFolderDialog } from './components/ProjectFolderDialog';
import { InfoDialog } from './components/InfoDialog';
import { NotificationOffer } from './components/NotificationOffer';
import { RenameDialog } from './components/RenameDialog';
import { SecretsNotice } from './components/SecretsNotice';
import { SettingsDialog } from './components/SettingsDialog';
import { ShareDialog } from './components/ShareDialog';
import { Sidebar } from './components/Sidebar';
import { TabBar } from './components/TabBar';
import { TrashDialog } from './components/TrashDialog';
import { UndoNotice, type UndoOffer } from './components/UndoNotice';
import { isDesktop } from './bridge';
import { BridgeError } from './bridge/bridge-error';
import { useBridge } from './bridge/context';
import { sessionLabel } from './lib/format';
import { useShortcuts } from './lib/shortcuts';
import { useAttentionMarkers, useAttentionNotifications } from './state/attention';
import { ChatSessions } from './state/chat-sessions';
import { useImportDrop } from './state/import-drop';
import { useSessionActions, type DialogAction } from './state/session-actions';
import { useSessionMetaCache } from './state/session-meta';
import { useSidebarCollapsed } from './state/sidebar-collapsed';
import { useSyncStatus } from './state/sync-status';
import { useTabs } from './state/tabs';
import { errorMessage } from './lib/errors';

type DialogState =
  | { kind: 'info'; id: string }
  | { kind: 'delete'; meta: SessionMeta }
  | { kind: 'rename'; meta: SessionMeta }
  | { kind: 'share'; meta: SessionMeta }
  | { kind: 'settings' }
  | { kind: 'import-from' }
  | { kind: 'trash' }
  /** No recent folder is there (the first start): the new session's folder is asked first. */
  | { kind: 'new-session-folder' }
  /** `closing`: asked because the user closes the session's tab; Keep or Revert closes it, Cancel keeps it open. */
  | { kind: 'changes'; id: string; files: string[]; closing: boolean }
  | null;

const CHAT_ID = 'chat';

/** The skip link: past the sidebar, into the message box (the chat itself when no tab is open). */
function skipToChat(event: MouseEvent<HTMLAnchorElement>): void {
  event.preventDefault();
  const box = document.querySelector<HTMLElement>(`#${CHAT_ID} textarea[aria-label="Message"]`);
  (box ?? document.getElementById(CHAT_ID))?.focus();
}

export function App({ initialSettings, appInfo }: { initialSettings: Settings; appInfo: AppInfo }) {
  const bridge = useBridge();
  const sessions = useSessionMetaCache();
  const [settings, setSettings] = useState(initialSettings);
  const [dialog, setDialog] = useState<DialogState>(null);
  const banners = useBanners();
  const syncStatus = useSyncStatus(bridge);
  const [chats] = useState(() => new ChatSessions(bridge, sessions));
  const searchBox = useRef<HTMLInputElement>(null);
  const dropChat = useCallback((id: string) => chats.drop(id), [chats]);
  const chatFor = useCallback((id: string) => chats.get(id), [chats]);
  const tabs = useTabs(initialSettings, dropChat);

  useEffect(() => chats.connect(), [chats]);
  const markers = useAttentionMarkers(tabs.ids, chatFor);
  const [offeringNotifications, setOfferingNotifications] = useState(false);
  useAttentionNotifications({ openTabs: tabs.ids, activeTab: tabs.active, onShow: tabs.focus, onOffer: () => setOfferingNotifications(true) });
  useEffect(() => bridge.onAccessLost(banners.show), [bridge, banners.show]);

  /** Sessions this window deletes itself: their tabs close without a notice. */
  const deleting = useRef(new Set<string>());
  const currentTabs = useRef(tabs);
  currentTabs.current = tabs;
  const showBanner = banners.show;
  // A session deleted elsewhere (the `loom` command, another window) closes its tab, saying so.
  useEffect(
    () =>
      bridge.onEvent((event) => {
        if (event.type !== 'session_deleted' || !currentTabs.current.ids.includes(event.sessionId)) return;
        if (!deleting.current.has(event.sessionId)) showBanner(`The session "${sessionLabel(event.meta)}" was deleted elsewhere; its tab was closed.`);
        currentTabs.current.close(event.sessionId);
      }),
    [bridge, showBanner],
  );
  // MCP servers that could not start (or a bad mcp.json): one banner line each, once per window.
  useEffect(() => {
    bridge.invoke('settings.mcpServers', {}).then(
      (overview) => mcpProblems(overview).forEach(showBanner),
      () => {}, // the settings dialog says it again, with the error
    );
  }, [bridge, showBanner]);
  // A session file opened from the operating system (desktop app) was imported: show it.
  useEffect(() => bridge.onEvent((event) => event.type === 'open_session' && currentTabs.current.open(event.sessionId)), [bridge]);
  useEffect(() => {
    const root = document.documentElement;
    if (settings.theme === 'system') delete root.dataset.theme;
    else root.dataset.theme = settings.theme;
  }, [settings.theme]);

  /** Runs a user action; a failure becomes a banner, never a broken window. */
  const attempt = useCallback(
    async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await action();
      } catch (err) {
        banners.show(errorMessage(err));
        return undefined;
      }
    },
    [banners],
  );

  /**
   * Closes a tab; when its session changed files, first offers to revert them (as the
   * terminal does when a session ends). Keep is the default.
   */
  const closeTab = useCallback(
    async (id: string) => {
      const files = await bridge.invoke('chat.changes', { sessionId: id }).then(
        (changes) => changes.files,
        () => [], // a session gone meanwhile has nothing to revert
      );
      if (files.length > 0) setDialog({ kind: 'changes', id, files, closing: true });
      else tabs.close(id);
    },
    [bridge, tabs],
  );

  /**
   * The search hit opened last: its session's view opens (again, if it was open) at the
   * message that matched, highlighted. `n` tells one opening from the next.
   */
  const [hit, setHit] = useState<{ id: string; index: number; n: number } | null>(null);
  useEffect(() => setHit((now) => (now && now.id !== tabs.active ? null : now)), [tabs.active]);
  const openAt = useCallback(
    (meta: SessionMeta, index: number) => {
      setHit((now) => ({ id: meta.id, index, n: (now?.n ?? 0) + 1 }));
      tabs.open(meta.id);
    },
    [tabs],
  );
  const shownHit = hit?.id === tabs.active ? hit : null;
  /** A sub-agent's card in the tab in front opens the child's session in a tab right after it. */
  const openChild = useCallback((childId: string) => tabs.open(childId, tabs.active ?? undefined), [tabs]);
  /** A teammate's session found on the hub but not here yet: a sync brings it (when shared with a team of mine), then it opens. */
  const openUnsynced = useCallback(
    async (meta: SessionMeta) => {
      const status = await attempt(() => bridge.invoke('sync.now', {}));
      const here = await bridge.invoke('sessions.info', { id: meta.id }).then(
        () => true,
        () => false,
      );
      if (here) tabs.open(meta.id);
      else if (status) banners.show(`"${sessionLabel(meta)}" has not reached this device yet. ${status.line}`);
    },
    [attempt, banners, bridge, tabs],
  );
  const sidebar = useSidebarCollapsed();
  const showDialog = useCallback((action: DialogAction, meta: SessionMeta) => {
    setDialog(action === 'info' ? { kind: 'info', id: meta.id } : { kind: action, meta });
  }, []);
  const [undoOffer, setUndoOffer] = useState<UndoOffer | null>(null);
  const offerUndo = useCallback((text: string, undo: () => Promise<void>) => setUndoOffer((now) => ({ text, undo, n: (now?.n ?? 0) + 1 })), []);
  const dismissUndo = useCallback(() => setUndoOffer(null), []);
  const sessionActions = useSessionActions({ bridge, chats, tabs, attempt, showDialog, offerUndo });

  /** In the most recent folder still there; with none (the first start), the folder is asked for first. */
  const newSession = useCallback(async () => {
    const askedFrom = tabs.active;
    try {
      const meta = await bridge.invoke('chat.create', {});
      tabs.openMade(meta.id, askedFrom);
    } catch (err) {
      if (err instanceof BridgeError && err.code === 'no_project') setDialog({ kind: 'new-session-folder' });
      else banners.show(errorMessage(err));
    }
  }, [banners, bridge, tabs]);
  const newSessionIn = useCallback(
    async (projectDir: string) => {
      const askedFrom = tabs.active;
      try {
        const meta = await bridge.invoke('chat.create', { projectDir });
        tabs.openMade(meta.id, askedFrom);
        return null;
      } catch (err) {
        return errorMessage(err);
      }
    },
    [bridge, tabs],
  );

  /**
   * Imports each file and opens it; each one refused gets its own banner naming it, and so
   * does one whose sub-agent sessions were imported unlinked (as `loom --import` says it).
   */
  const importFiles = useCallback(
    async (files: File[]) => {
      for (const file of files) {
        try {
          if (file.size > IMPORT_MAX_BODY_BYTES) throw new Error(`it is larger than any Loom export can be (${IMPORT_MAX_BODY_BYTES / 1024 / 1024} MB).`);
          const { meta, unlinked } = await bridge.invoke('sessions.import', { text: await file.text() });
          tabs.open(meta.id);
          if (unlinked.length) banners.note(`${file.name}: ${unlinkedNote(meta.id, unlinked)}`);
        } catch (err) {
          banners.show(`${file.name}: ${errorMessage(err)}`);
        }
      }
    },
    [banners, bridge, tabs],
  );
  const importDrop = useImportDrop((files) => void importFiles(files));

  /** Counts the times Ctrl+F was pressed: the open chat shows its find bar when the count moves. */
  const [findAsked, setFindAsked] = useState(0);
  const shortcuts = useMemo(
    () => ({
      newSession: () => void newSession(),
      closeTab: () => tabs.active && void closeTab(tabs.active),
      nextTab: () => tabs.cycle(1),
      previousTab: () => tabs.cycle(-1),
      focusSearch: () => {
        // A folded sidebar unfolds first: its search box must exist to take the focus.
        flushSync(sidebar.expand);
        searchBox.current?.focus();
      },
      findInSession: () => setFindAsked((n) => n + 1),
      toggleSidebar: sidebar.toggle,
    }),
    [newSession, closeTab, tabs, sidebar.toggle, sidebar.expand],
  );
  useShortcuts(shortcuts, dialog === null);

  return (
    <div className={`app${sidebar.collapsed ? ' sidebar-collapsed' : ''}`} {...importDrop.handlers}>
      <a className="skip-link" href={`#${CHAT_ID}`} onClick={skipToChat}>
        Skip to chat
      </a>
      {importDrop.dragging && (
        <div className="drop-target" role="status">
          <span>Drop Loom session files (.loom, .json) to import them</span>
        </div>
      )}
      <Sidebar
        searchRef={searchBox}
        activeId={tabs.active}
        markers={markers}
        onAction={(action, meta) => void sessionActions.run(action, meta)}
        onOpenAt={openAt}
        onOpenUnsynced={(meta) => void openUnsynced(meta)}
        syncStatus={syncStatus}
        collapsed={sidebar.collapsed}
        onToggleCollapsed={sidebar.toggle}
        onNewSession={() => void newSession()}
        onImport={(file) => void importFiles([file])}
        onImportFrom={() => setDialog({ kind: 'import-from' })}
        onTrash={() => setDialog({ kind: 'trash' })}
        onSettings={() => setDialog({ kind: 'settings' })}
        onError={banners.show}
      />
      <main id={CHAT_ID} className="main" tabIndex={-1}>
        <TabBar
          tabs={tabs.ids}
          markers={markers}
          active={tabs.active}
          onSelect={tabs.focus}
          onClose={(id) => void closeTab(id)}
          onNew={() => void newSession()}
        />
        <SecretsNotice names={appInfo.secretEnvNames} />
        <Banners banners={banners.list} onDismiss={banners.dismiss} />
        {undoOffer && <UndoNotice offer={undoOffer} onDone={dismissUndo} />}
        {offeringNotifications && <NotificationOffer onDone={() => setOfferingNotifications(false)} />}
        {tabs.active ? (
          <ChatView
            key={shownHit ? `${tabs.active}#${shownHit.n}` : tabs.active}
            chat={chats.get(tabs.active)}
            onAction={(action, meta) => void sessionActions.run(action, meta)}
            branching={sessionActions.branching}
            scrollToMessage={shownHit?.index ?? sessionActions.scrollTargetFor(tabs.active)}
            highlightMessage={shownHit?.index}
            findAsked={findAsked}
            onOpenSettings={() => setDialog({ kind: 'settings' })}
            onOpenChild={openChild}
            onShowChanges={() => {
              const id = tabs.active!;
              setDialog({ kind: 'changes', id, files: chats.get(id).getSnapshot().changedFiles, closing: false });
            }}
          />
        ) : (
          <EmptyState onNew={() => void newSession()} appInfo={appInfo} />
        )}
      </main>
      {dialog?.kind === 'info' && (
        <InfoDialog
          id={dialog.id}
          onClose={() => setDialog(null)}
          onOpen={(id) => {
            setDialog(null);
            tabs.open(id);
          }}
        />
      )}
      {dialog?.kind === 'rename' && (
        <RenameDialog
          meta={dialog.meta}
          onClose={() => setDialog(null)}
          onRename={(title) => attempt(() => bridge.invoke('sessions.rename', { id: dialog.meta.id, title }))}
        />
      )}
      {dialog?.kind === 'share' && <ShareDialog meta={dialog.meta} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'trash' && <TrashDialog onClose={() => setDialog(null)} attempt={attempt} />}
      {dialog?.kind === 'delete' && (
        <DeleteDialog
          meta={dialog.meta}
          trashDays={settings.trashDays}
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            const id = dialog.meta.id;
            deleting.current.add(id);
            try {
              const done = await attempt(() => bridge.invoke('sessions.delete', { id }));
              if (!done) return;
              tabs.close(id);
              offerUndo(`Deleted "${sessionLabel(dialog.meta)}"; it is in the Trash.`, async () => {
                await attempt(() => bridge.invoke('sessions.restore', { id }));
              });
            } finally {
              deleting.current.delete(id);
            }
          }}
        />
      )}
      {dialog?.kind === 'changes' && (
        <ChangesDialog
          files={dialog.files}
          intro={
            dialog.closing
              ? 'This session changed these files. Keep them, or revert them to how they were before the session, before its tab closes?'
              : 'This session wrote or edited these files.'
          }
          onKeep={() => {
            setDialog(null);
            if (dialog.closing) tabs.close(dialog.id);
          }}
          onCancel={() => setDialog(null)}
          cancellable={dialog.closing}
          onRevert={async () => {
            const refused = await sessionActions.revert(dialog.id);
            if (refused) return refused;
            setDialog(null);
            if (dialog.closing) tabs.close(dialog.id);
            return null;
          }}
        />
      )}
      {dialog?.kind === 'import-from' && <ImportFromDialog onClose={() => setDialog(null)} />}
      {dialog?.kind === 'new-session-folder' && (
        <ProjectFolderDialog
          title="Choose a project folder"
          intro="Loom works in the folder you choose: it reads, writes and runs commands there only. Pick the folder of your project."
          onChoose={newSessionIn}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'settings' && (
        <SettingsDialog
          settings={settings}
          syncStatus={syncStatus}
          onClose={() => setDialog(null)}
          onSave={async (patch) => setSettings(await bridge.invoke('settings.set', patch))}
        />
      )}
    </div>
  );
}

function EmptyState({ onNew, appInfo }: { onNew: () => void; appInfo: AppInfo }) {
  return (
    <section className="empty" aria-label="No session open">
      <h1>Loom</h1>
      <p>Open a session from the list, or start a new one.</p>
      <button type="button" className="primary" onClick={onNew} aria-keyshortcuts="Alt+N">
        New session
      </button>
      <p className="hint">Alt+N new session · Alt+W close tab · Alt+] / Alt+[ next / previous tab · Ctrl+K search · Enter send</p>
      <p className="hint">
        {isDesktop() ? 'Desktop' : 'Browser mode'} · data {appInfo.dataDir}
      </p>
    </section>
  );
}
