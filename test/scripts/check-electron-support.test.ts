/** `npm test` fails once the Electron line Loom ships leaves support (scripts/check-electron-support.mjs). */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { supportStatus, supportWindows } from '../../scripts/check-electron-support.mjs';

const security = fs.readFileSync('docs/SECURITY.md', 'utf8');
const table = `## Electron support window\n\n| line | first stable | leaves support | source |\n|---|---|---|---|\n| 45 | 2026-10-21 | 2027-04-07 | projected |\n\n## Next\n| 46 | x | 2027-06-01 | not this table |\n`;

describe('the Electron support check', () => {
  it('reads only the support window table of SECURITY.md', () => {
    expect(supportWindows(table)).toEqual([{ major: 45, endsOn: '2027-04-07' }]);
  });

  it('passes before the line leaves support, warns in its last four weeks, fails from that day on', () => {
    const windows = supportWindows(table);
    expect(supportStatus('45.5.0', windows, new Date('2026-12-02T10:00:00Z'))).toEqual({
      level: 'ok',
      message: 'Electron 45.5.0 is supported until 2027-04-07.',
    });
    expect(supportStatus('45.5.0', windows, new Date('2027-03-20T10:00:00Z'))).toEqual({
      level: 'warn',
      message: 'Electron 45 leaves support on 2027-04-07, in 17 days: plan the move to a newer line.',
    });
    for (const day of ['2027-04-07T00:00:00Z', '2027-09-01T00:00:00Z'])
      expect(supportStatus('45.5.0', windows, new Date(day))).toEqual({
        level: 'fail',
        message: 'Electron 45 left support on 2027-04-07 and gets no more security fixes: move to a supported line (docs/SECURITY.md).',
      });
  });

  it('fails for a line the table does not name, as after a bump without its row', () => {
    expect(supportStatus('46.0.1', supportWindows(table), new Date('2026-12-02T10:00:00Z')).level).toBe('fail');
  });

  it('has a row for the Electron in package.json, and the script exits by it', () => {
    const version = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { devDependencies: { electron: string } }).devDependencies.electron;
    const status = supportStatus(version, supportWindows(security), new Date());
    const run = spawnSync(process.execPath, ['scripts/check-electron-support.mjs'], { encoding: 'utf8' });
    expect(run.status).toBe(status.level === 'fail' ? 1 : 0);
    expect(`${run.stdout}${run.stderr}`).toBe(`check-electron-support: ${status.message}\n`);
  });
});
