/** The desktop app never updates silently: what it asks before downloading and before installing. */
import { describe, expect, it } from 'vitest';
import { DOWNLOAD, RESTART, downloadPrompt, restartPrompt } from '../../src/main/adapters/update-prompts';

const offer = { version: '0.2.0', files: [{ url: 'https://github.com/o/loom/releases/download/v0.2.0/Loom-0.2.0.AppImage', size: 117_440_512 }] };

describe('update prompts', () => {
  it('say which version, which file and how much it downloads, from where, and default to not downloading', () => {
    const prompt = downloadPrompt(offer, '0.1.0', 'GitHub releases');
    expect(prompt.message).toBe('Loom 0.2.0 is available (you have 0.1.0).');
    expect(prompt.detail).toBe('Download Loom-0.2.0.AppImage, 112 MB from GitHub releases? Loom installs it only when you restart it.');
    expect(prompt.buttons?.[DOWNLOAD]).toBe('Download');
    expect(prompt.defaultId).not.toBe(DOWNLOAD);
    expect(prompt.cancelId).not.toBe(DOWNLOAD);
  });

  it('ask before restarting to install, defaulting to later', () => {
    const prompt = restartPrompt(offer);
    expect(prompt.message).toBe('Loom 0.2.0 has been downloaded.');
    expect(prompt.buttons?.[RESTART]).toBe('Restart now');
    expect(prompt.defaultId).not.toBe(RESTART);
  });

  it('still say what they download when the size is unknown', () => {
    expect(downloadPrompt({ version: '1.0.0', files: [{ url: 'https://x/Loom Setup 1.0.0.exe' }] }, '0.1.0', 'GitHub releases').detail).toContain(
      'Download Loom Setup 1.0.0.exe from GitHub releases?',
    );
  });
});
