/**
 * What the desktop app says before it updates itself. Updates are never silent: an update
 * found on GitHub releases is announced with its version, the file it would download and
 * its size, and nothing is downloaded until the user says so; a downloaded update is
 * installed only when the user chooses to restart (src/main/updater.ts).
 */
import type { MessageBoxOptions } from 'electron';
import { formatBytes } from '../../shared/byte-size';

/** The part of electron-updater's UpdateInfo the prompts read. */
export interface UpdateOffer {
  version: string;
  files: readonly { url: string; size?: number }[];
  releaseName?: string | null;
}

export const DOWNLOAD = 0;
export const RESTART = 0;

/** The question asked when an update is available: Download is button 0, Not now the default. */
export function downloadPrompt(offer: UpdateOffer, currentVersion: string, source: string): MessageBoxOptions {
  const file = offer.files[0];
  const what = file ? `${file.url.split('/').pop()}${file.size ? `, ${formatBytes(file.size)}` : ''}` : 'the installer';
  return {
    type: 'info',
    title: 'Update available',
    message: `Loom ${offer.version} is available (you have ${currentVersion}).`,
    detail: `Download ${what} from ${source}? Loom installs it only when you restart it.`,
    buttons: ['Download', 'Not now'],
    defaultId: 1,
    cancelId: 1,
  };
}

/** Asked once the download is complete: Restart is button 0, Later the default. */
export function restartPrompt(offer: UpdateOffer): MessageBoxOptions {
  return {
    type: 'info',
    title: 'Update ready',
    message: `Loom ${offer.version} has been downloaded.`,
    detail: 'Restart Loom now to install it? Open sessions are saved; a running turn is stopped.',
    buttons: ['Restart now', 'Later'],
    defaultId: 1,
    cancelId: 1,
  };
}
