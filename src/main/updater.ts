/**
 * Updates of the packaged desktop app from GitHub releases (electron-updater). Checked once
 * after start when the setting allows it; each step asks first (./adapters/update-prompts.ts).
 * A failure is one line on stderr: an update check must never disturb the work at hand.
 */
import { app, dialog, type BrowserWindow } from 'electron';
import electronUpdater, { type UpdateInfo } from 'electron-updater';
import { errorMessage } from '../core/errors';
import { DOWNLOAD, RESTART, downloadPrompt, restartPrompt } from './adapters/update-prompts';

const SOURCE = 'GitHub releases';

export function offerUpdates(window: BrowserWindow): void {
  // Development builds and the browser mode have nothing to update.
  if (!app.isPackaged) return;
  const { autoUpdater } = electronUpdater;
  autoUpdater.autoDownload = false;
  autoUpdater.autoInstallOnAppQuit = false;
  autoUpdater.on('update-available', (info: UpdateInfo) => void askToDownload(window, info));
  autoUpdater.on('update-downloaded', (info: UpdateInfo) => void askToRestart(window, info));
  autoUpdater.on('error', (err: unknown) => console.error(`loom: update check failed: ${errorMessage(err)}`));
  autoUpdater.checkForUpdates().catch(() => {}); // reported by the 'error' listener
}

async function askToDownload(window: BrowserWindow, info: UpdateInfo): Promise<void> {
  const { response } = await dialog.showMessageBox(window, downloadPrompt(info, app.getVersion(), SOURCE));
  if (response === DOWNLOAD) await electronUpdater.autoUpdater.downloadUpdate();
}

async function askToRestart(window: BrowserWindow, info: UpdateInfo): Promise<void> {
  const { response } = await dialog.showMessageBox(window, restartPrompt(info));
  if (response === RESTART) electronUpdater.autoUpdater.quitAndInstall();
}
