/**
 * Damaging a real loom.db the way a failing disk or a careless copy does: a b-tree page of
 * one table overwritten with garbage, a file cut short, a header scribbled over. Free of
 * vitest, so the browser tests use it too.
 */
import fs from 'node:fs';
import crypto from 'node:crypto';
import path from 'node:path';
import { databasePath } from '../../src/core/store/db';
import { withReadOnlyView } from '../../src/core/store/read-only-view';
import { SessionStore } from '../../src/core/store/session-store';
import { nth } from '../support/elements';

/**
 * `count` sessions with messages long enough that the messages table spans many pages;
 * session i's question repeats the word `asked<i>`, its answer `answered<i>`.
 */
export function fillStore(dataDir: string, count: number): string[] {
  const store = SessionStore.open(dataDir);
  try {
    return Array.from({ length: count }, (_, i) => {
      const words = (word: string) => `${word}${i} `.repeat(300);
      return store.create({
        title: `Session ${i}`,
        messages: [
          { role: 'system', content: 'You are Loom.' },
          { role: 'user', content: `Question ${i}: ${words('asked')}` },
          { role: 'assistant', content: `Answer ${i}: ${words('answered')}` },
        ],
      }).id;
    });
  } finally {
    store.close();
  }
}

/** The leaf pages of a table's b-tree, in key order (from SQLite's dbstat table). */
export function leafPages(file: string, table: string): number[] {
  return withReadOnlyView(file, (db) =>
    (db.prepare(`SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path`).all(table) as { pageno: number }[]).map((r) => r.pageno),
  );
}

/** Overwrites one page with garbage that is not a valid b-tree page. */
export function smashPage(file: string, page: number): void {
  const pageSize = fs.readFileSync(file).readUInt16BE(16);
  const fd = fs.openSync(file, 'r+');
  try {
    fs.writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (page - 1) * pageSize);
  } finally {
    fs.closeSync(fd);
  }
}

export function sha256(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The names in a folder, for "nothing was created beside it" checks. */
export function listing(dir: string): string[] {
  return fs.readdirSync(dir).sort();
}

/**
 * The rowids of a table held on each of its leaf pages, from dbstat's cell counts (leaves
 * in key order, rowids ascending), so a test knows exactly which rows a broken page takes.
 */
export function rowidsByLeaf(file: string, table: string): Map<number, number[]> {
  return withReadOnlyView(file, (db) => {
    const leaves = db.prepare(`SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path`).all(table) as {
      pageno: number;
      ncell: number;
    }[];
    const rowids = db.prepare(`SELECT rowid FROM "${table}" ORDER BY rowid`).pluck().all() as number[];
    let next = 0;
    return new Map(leaves.map(({ pageno, ncell }) => [pageno, rowids.slice(next, (next += ncell))]));
  });
}

/**
 * Breaks a leaf page in the middle of the messages table of a fillStore database; returns
 * a session whose transcript now reads the broken page and a word found only in its broken
 * message. Found on a copy in `scratchDir`, so loom.db itself is not opened.
 */
export function breakMessagesPage(dataDir: string, ids: string[], scratchDir: string): { id: string; index: number; word: string } {
  const file = databasePath(dataDir);
  const pages = leafPages(file, 'messages');
  smashPage(file, nth(pages, Math.floor(pages.length / 2)));
  const copyDir = path.join(scratchDir, 'copy-of-damaged');
  fs.mkdirSync(copyDir);
  fs.copyFileSync(file, databasePath(copyDir));
  const store = SessionStore.open(copyDir);
  const fails = (read: () => unknown) => {
    try {
      read();
      return false;
    } catch {
      return true;
    }
  };
  try {
    const index = ids.findIndex((id) => fails(() => store.getTranscript(id)));
    const word = [`asked${index}`, `answered${index}`].find((w) => fails(() => store.search(w)));
    if (index < 0 || !word) throw new Error('no session reads the broken page');
    return { id: nth(ids, index), index, word };
  } finally {
    store.close();
    fs.rmSync(copyDir, { recursive: true, force: true });
  }
}
