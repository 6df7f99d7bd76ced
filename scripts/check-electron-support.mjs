// `npm test`: the Electron line Loom ships must still get security fixes. docs/SECURITY.md's
// "Electron support window" table gives, per major, the day it leaves support (Electron
// supports its latest three majors, so a line leaves when the third after it ships). This
// fails once that day has come, or when the Electron in package.json has no row, and warns
// in the four weeks before.
//   node scripts/check-electron-support.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WARN_DAYS = 28;
const DAY_MS = 86_400_000;

/** Rows of the support table: `| 45 | 2026-10-21 | 2027-04-07 | … |` as { major, endsOn }. */
export function supportWindows(securityText) {
  const section = securityText.split(/^## /m).find((s) => s.startsWith('Electron support window')) ?? '';
  const rows = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const major = /^(\d+)$/.exec(cells[1] ?? '')?.[1];
    const endsOn = /^(\d{4}-\d{2}-\d{2})\b/.exec(cells[3] ?? '')?.[1];
    if (major && endsOn) rows.push({ major: Number(major), endsOn });
  }
  return rows;
}

/** { level: 'ok' | 'warn' | 'fail', message } for Electron `version` on `today` (a Date). */
export function supportStatus(version, windows, today) {
  const major = Number(String(version).split('.')[0]);
  const row = windows.find((w) => w.major === major);
  if (!row)
    return { level: 'fail', message: `Electron ${version} has no row in docs/SECURITY.md's support window table: add the day its line leaves support.` };
  const daysLeft = Math.floor((Date.parse(`${row.endsOn}T00:00:00Z`) - today.getTime()) / DAY_MS);
  if (daysLeft <= 0)
    return {
      level: 'fail',
      message: `Electron ${major} left support on ${row.endsOn} and gets no more security fixes: move to a supported line (docs/SECURITY.md).`,
    };
  if (daysLeft <= WARN_DAYS)
    return { level: 'warn', message: `Electron ${major} leaves support on ${row.endsOn}, in ${daysLeft} days: plan the move to a newer line.` };
  return { level: 'ok', message: `Electron ${version} is supported until ${row.endsOn}.` };
}

function main() {
  const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies.electron;
  const windows = supportWindows(fs.readFileSync(path.join(root, 'docs/SECURITY.md'), 'utf8'));
  const { level, message } = supportStatus(version, windows, new Date());
  (level === 'ok' ? console.log : console.error)(`check-electron-support: ${message}`);
  process.exit(level === 'fail' ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
