/**
 * The desktop app's main process: one backend (session store + engine) for all windows,
 * the bridge contract on IPC, hardened windows, a single-instance lock, settings in
 * electron-store with the API key encrypted by safeStorage. Everything Electron-specific
 * stays in this file; the decisions live in ./adapters and are tested under Node.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BrowserWindow, app, dialog, ipcMain, nativeImage, nativeTheme, safeStorage, session, shell } from 'electron';
import Store from 'electron-store';
import { IPC_EVENT_CHANNEL } from '../shared/ipc-channels';
import type { BridgeEvent, Handlers, Settings } from '../shared/contract';
import { errorMessage } from '../core/errors';
import { resolveDataDir } from '../core/paths';
import { SessionStore } from '../core/store/session-store';
import { openBackend, type Backend } from '../backend/backend';
import { DragFiles, DRAG_ICON_DATA_URL } from './adapters/drag-export';
import { launchOptions } from './adapters/launch-options';
import { readSessionFile, sessionFilesIn } from './adapters/session-files';
import { DesktopSettingsStore, type KeyValueFile } from './adapters/settings-store';
import { appUrlMatcher, hardenContents, hardenSession } from './adapters/window-security';
import { registerBridge } from './ipc';
import { offerUpdates } from './updater';

const here = path.dirname(fileURLToPath(import.meta.url));
const indexHtml = path.join(here, '../renderer/index.html');
const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
const isAppUrl = appUrlMatcher(pathToFileURL(indexHtml).href, devServerUrl);
const dragFiles = new DragFiles();
let backend: Backend | null = null;
/** Session files opened before the backend was ready (the first start's arguments, macOS open-file). */
const filesToOpen = sessionFilesIn(process.argv.slice(1));
/** `Loom --cli …` (the `loom` command installed beside the packaged app) runs the command line, no window. */
const cliAt = process.argv.indexOf('--cli');

if (cliAt !== -1) {
  app.dock?.hide();
  void import('../cli/main').then(({ runCommandLine }) => runCommandLine(process.argv.slice(cliAt + 1)), fail);
} else if (!app.requestSingleInstanceLock()) {
  // Another Loom window is open: it gets focused (second-instance below) and this one ends.
  app.quit();
} else {
  app.on('second-instance', (_event, argv) => {
    focusFirstWindow();
    for (const file of sessionFilesIn(argv.slice(1))) void openSessionFile(file);
  });
  // macOS hands files over by event, also before the app is ready: they wait for the backend.
  app.on('open-file', (event, file) => {
    event.preventDefault();
    if (backend) void openSessionFile(file);
    else filesToOpen.push(file);
  });
  app.on('web-contents-created', (_event, contents) => hardenContents(contents, (url) => void shell.openExternal(url)));
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', (event) => {
    dragFiles.cleanUp();
    if (!backend) return;
    // Quit only once the store is closed: leases released, a stopped turn ended, the WAL checkpointed.
    event.preventDefault();
    const closing = backend;
    backend = null;
    closing.close().then(
      () => app.quit(),
      (err) => fail(err),
    );
  });
  app.whenReady().then(start, (err) => fail(err));
}

function start(): void {
  try {
    hardenSession(session.defaultSession);
    backend = openDesktopBackend();
    const handlers = withThemeFollowing(backend.handlers);
    registerBridge(ipcMain, handlers, senderOf, isAppUrl);
    backend.subscribe(broadcast);
    nativeTheme.themeSource = (handlers['settings.get']({}) as Settings).theme;
    for (const file of filesToOpen.splice(0)) void openSessionFile(file);
    offerUpdates(createWindow());
    app.on('activate', () => BrowserWindow.getAllWindows().length === 0 && createWindow());
  } catch (err) {
    fail(err);
  }
}

function openDesktopBackend(): Backend {
  const launch = launchOptions(process.argv.slice(1));
  const dataDir = resolveDataDir(launch.dataDir);
  const file = new Store({ cwd: dataDir, name: 'desktop-settings', configFileMode: 0o600 }) as unknown as KeyValueFile;
  return openBackend({
    dataDir,
    settingsStore: new DesktopSettingsStore(file, safeStorage),
    shell: 'desktop',
    electronVersion: process.versions.electron,
    openStore: (dir) => SessionStore.open(dir),
    projectDir: launch.project,
    // Not run in CI (Electron cannot start there): the backend checks the folder picked as it checks one typed.
    pickFolder: async () => {
      const window = BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];
      const options: Electron.OpenDialogOptions = { title: 'Project folder', properties: ['openDirectory', 'createDirectory'] };
      const picked = await (window ? dialog.showOpenDialog(window, options) : dialog.showOpenDialog(options));
      return picked.canceled ? null : (picked.filePaths[0] ?? null);
    },
    startDrag: (exported) => {
      // The window the drag began in; under a bare X server (CI) no window reports focus.
      const contents = (BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0])?.webContents;
      if (!contents) return;
      contents.startDrag({ file: dragFiles.write(exported), icon: nativeImage.createFromDataURL(DRAG_ICON_DATA_URL) });
    },
  });
}

function createWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Loom',
    autoHideMenuBar: true,
    webPreferences: {
      preload: path.join(here, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      // A middle click could otherwise open a link inside the app (electronegativity AUXCLICK).
      disableBlinkFeatures: 'Auxclick',
    },
  });
  window.once('ready-to-show', () => window.show());
  if (devServerUrl) void window.loadURL(devServerUrl);
  else void window.loadFile(indexHtml);
  return window;
}

/**
 * Imports a session file opened from the operating system and opens it in a tab: through
 * the settings for a window still loading (it restores the open tabs), and by an event for
 * a window already showing. A file that cannot be imported is said in one dialog line.
 */
async function openSessionFile(file: string): Promise<void> {
  const handlers = backend?.handlers;
  if (!handlers) return;
  try {
    const { meta } = await handlers['sessions.import']({ text: await readSessionFile(file) });
    const { openTabs } = await handlers['settings.get']({});
    await handlers['settings.set']({ openTabs: [...openTabs.filter((id) => id !== meta.id), meta.id].slice(-100), activeTab: meta.id });
    broadcast({ type: 'open_session', sessionId: meta.id });
  } catch (err) {
    dialog.showErrorBox('Loom could not open this file', `${path.basename(file)}: ${errorMessage(err)}`);
  }
}

function focusFirstWindow(): void {
  const [window] = BrowserWindow.getAllWindows();
  if (!window) return void createWindow();
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

function broadcast(event: BridgeEvent): void {
  for (const window of BrowserWindow.getAllWindows()) {
    if (!window.isDestroyed()) window.webContents.send(IPC_EVENT_CHANNEL, event);
  }
}

/** The window chrome (menus, dialogs, scroll bars) follows the theme chosen in the settings. */
function withThemeFollowing(handlers: Handlers): Handlers {
  return {
    ...handlers,
    'settings.set': async (input) => {
      const settings = await handlers['settings.set'](input);
      nativeTheme.themeSource = settings.theme;
      return settings;
    },
  };
}

function senderOf(event: unknown): { url: string | undefined; isMainFrame: boolean } {
  const { senderFrame, sender } = event as Electron.IpcMainInvokeEvent;
  return { url: senderFrame?.url, isMainFrame: senderFrame !== null && senderFrame === sender.mainFrame };
}

function fail(err: unknown): void {
  console.error(`loom: the desktop app could not start: ${errorMessage(err)}`);
  app.exit(1);
}
