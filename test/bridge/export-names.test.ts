/**
 * A session's title names its export file (shared/export-name.ts): a title chosen to
 * disguise the file or to name a device must give a file name that is safe on every
 * operating system. Sessions are renamed in a real store, exported through the dispatcher
 * and written to disk by the desktop's drag (docs/SECURITY.md#drag-export-files).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBackend, type Backend } from '../../src/backend/backend';
import { dispatch } from '../../src/backend/dispatch';
import { JsonFileSettingsStore } from '../../src/backend/settings-store';
import { DragFiles } from '../../src/main/adapters/drag-export';
import type { ExportFile } from '../../src/shared/contract';
import { exportFileName } from '../../src/shared/export-name';

const roots: string[] = [];
const backends: Backend[] = [];
const drags: DragFiles[] = [];
afterEach(async () => {
  drags.splice(0).forEach((d) => d.cleanUp());
  await Promise.all(backends.splice(0).map((b) => b.close()));
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function backend(): Backend {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-export-names-'));
  roots.push(root);
  const dataDir = path.join(root, 'data');
  const opened = openBackend({ dataDir, settingsStore: new JsonFileSettingsStore(dataDir), shell: 'desktop', projectDir: root, env: {} });
  backends.push(opened);
  return opened;
}

/** The name the Export menu downloads and the drag writes, for a session with this title. */
async function exportedName(b: Backend, title: string): Promise<string> {
  const meta = await b.engine.createSession();
  b.engine.rename(meta.id, title);
  const answer = await dispatch(b.handlers, 'sessions.export', { id: meta.id });
  if (!answer.ok) throw new Error(answer.error.message);
  return (answer.value as ExportFile).filename;
}

/** What no OS may see in a file name: invisible or bidi characters, controls, Windows' reserved characters. */
const UNSAFE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}\u2028\u2029<>:"/\\|?*]/u;
const WINDOWS_DEVICE = /^(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³])\s*(?:\.|$)/iu;

function expectSafe(name: string, ext = 'loom'): void {
  expect(name).not.toMatch(UNSAFE);
  expect(name).not.toMatch(WINDOWS_DEVICE);
  expect(name.endsWith(`.${ext}`)).toBe(true);
  expect(name).not.toMatch(/^[.\s]|[.\s]\.[a-z]+$/);
  expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
}

describe('export file names from hostile titles', () => {
  it.each([
    ['a right-to-left override disguising the extension', 'invoice\u202Efdp.exe', 'invoicefdp.exe.loom'],
    ['a right-to-left embedding and a pop', 'a\u202Bb\u202Cc', 'abc.loom'],
    ['left-to-right marks and overrides', '\u200Enotes\u200F\u202A\u202D', 'notes.loom'],
    ['isolates', '\u2066report\u2069 \u2067x\u2068y\u2069', 'report xy.loom'],
    ['an Arabic letter mark', 'plan\u061C', 'plan.loom'],
    ['zero-width characters and a soft hyphen', 're\u200Bad\u00ADme\u2060\uFEFF', 'readme.loom'],
    ['a Windows device name', 'CON', 'CON_.loom'],
    ['a device name in lower case with an extension', 'con.txt', 'con_.txt.loom'],
    ['a device name with a trailing space', 'Con ', 'Con_.loom'],
    ['a device name with trailing dots', 'nul...', 'nul_.loom'],
    ['a printer port', 'LPT1', 'LPT1_.loom'],
    ['a serial port with an extension', 'com9.log', 'com9_.log.loom'],
    ['a superscript port', 'COM¹', 'COM¹_.loom'],
    ['a device name hidden behind a zero-width space', 'A\u200BUX', 'AUX_.loom'],
    ['a device name before a space and a dot', 'PRN .md', 'PRN_ .md.loom'],
    ['every character Windows reserves', 'a<b>c:d"e/f\\g|h?i*j', 'a_b_c_d_e_f_g_h_i_j.loom'],
    ['control characters', 'tab\there\u0007bell\u001b[2J\u0085', 'tab_here_bell_[2J_.loom'],
    ['line separators', 'one\u2028two\u2029three', 'one_two_three.loom'],
    ['trailing dots and spaces', 'report. . ', 'report.loom'],
    ['only dots and invisible characters', '.\u200B.\u202E', 'session.loom'],
  ])('%s', async (_label, title, expected) => {
    const b = backend();
    const name = await exportedName(b, title);
    expect(name).toBe(expected);
    expectSafe(name);
    // The desktop drag writes a real file under exactly that name.
    const drag = new DragFiles();
    drags.push(drag);
    const written = drag.write({ filename: name, mimeType: 'application/json', text: '{}\n' });
    expect(path.basename(written)).toBe(name);
    expect(fs.readdirSync(path.dirname(written))).toEqual([name]);
  });

  it('words that only contain a device name are kept as they are', async () => {
    const b = backend();
    for (const title of ['CONSOLE', 'Contact', 'COM10', 'LPT', 'nullable.txt', 'auxiliary']) expect(await exportedName(b, title)).toBe(`${title}.loom`);
  });

  it('a long title of emoji, accents or plain letters fits a file system name, cut between characters', async () => {
    const b = backend();
    for (const [title, ext, format] of [
      ['🦩'.repeat(200), 'md', 'markdown'],
      ['é'.repeat(300), 'html', 'html'],
      ['日本語'.repeat(100), 'loom', 'json'],
    ] as const) {
      const meta = await b.engine.createSession();
      b.engine.rename(meta.id, title);
      const answer = await dispatch(b.handlers, 'sessions.export', { id: meta.id, format });
      const name = (answer as { value: ExportFile }).value.filename;
      expectSafe(name, ext);
      expect(title.startsWith(name.slice(0, -(ext.length + 1)).normalize('NFC'))).toBe(true);
      const drag = new DragFiles();
      drags.push(drag);
      expect(fs.existsSync(drag.write({ filename: name, mimeType: 'text/plain', text: 'x' }))).toBe(true);
    }
    expect(exportFileName({ id: 'x', title: 'x'.repeat(300), summary: null }).length).toBe(125);
  });

  it('a long title is cut after its last whole word, with no space or punctuation left at the end', async () => {
    const b = backend();
    // 'parser' ends past the 120th character: the name stops after 'the', not inside 'parser', nor at its ':'.
    const title = `${'Heron '.repeat(18)}fix the: parser and the lexer too`;
    const name = await exportedName(b, title);
    expect(name).toBe(`${'Heron '.repeat(18)}fix the.loom`);
    expectSafe(name);
    // In a script without spaces the cut falls between words too, within the byte limit.
    // The 66 characters that fit 200 bytes end inside 'です': the name stops after '文章'.
    const japanese = exportFileName({ id: 'x', title: '文章です。日本語の'.repeat(30), summary: null }, 'markdown');
    expect(japanese).toBe(`${'文章です。日本語の'.repeat(7)}文章.md`);
  });
});
