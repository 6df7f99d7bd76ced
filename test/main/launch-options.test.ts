/** What `npm start -- --data-dir DIR --project DIR` hands the desktop app, read from its command line. */
import { describe, expect, it } from 'vitest';
import { launchOptions } from '../../src/main/adapters/launch-options';

describe('launchOptions', () => {
  it('reads --data-dir and --project, spaced or with =, and nothing else', () => {
    expect(launchOptions(['/app', '--data-dir', '/d', '--project=/p', 'file.loom', '--ozone-platform=x11'])).toEqual({ dataDir: '/d', project: '/p' });
    expect(launchOptions(['/app'])).toEqual({});
  });

  it('takes no flag, and no empty value, for a folder', () => {
    expect(launchOptions(['--project', '--data-dir', '/d'])).toEqual({ dataDir: '/d' });
    expect(launchOptions(['--project='])).toEqual({});
  });
});
