/**
 * The original state of every file the agent writes or edits in a session, kept before
 * the first change, so that the user can be offered a revert when the session ends.
 * Later writes to the same file keep the first snapshot: revert means "as before the
 * session", not "as before the last write".
 */
import fs from 'node:fs';
import path from 'node:path';

interface Original {
  /** null: the file did not exist. */
  content: Buffer | null;
  mode: number;
  /** The topmost folder that did not exist yet (write_file creates folders), if any. */
  createdDir: string | null;
}

export class FileSnapshots {
  private readonly originals = new Map<string, Original>();

  /** Records `absPath` as it is now, unless it was recorded already. */
  snapshot(absPath: string): void {
    if (this.originals.has(absPath)) return;
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(absPath);
    } catch {
      stat = undefined;
    }
    if (stat?.isDirectory()) return; // the write will fail; nothing to restore
    this.originals.set(absPath, {
      content: stat ? fs.readFileSync(absPath) : null,
      mode: stat ? stat.mode & 0o7777 : 0o644,
      createdDir: stat ? null : topmostMissingDir(path.dirname(absPath)),
    });
  }

  /** Files whose content differs now from their snapshot, sorted. */
  changedFiles(): string[] {
    return [...this.originals.entries()]
      .filter(([p, original]) => !sameAsNow(p, original.content))
      .map(([p]) => p)
      .sort();
  }

  /**
   * Restores every changed file: original content back, files that did not exist removed
   * (and the folders created for them, when empty). Returns the paths restored.
   */
  revert(): string[] {
    const restored = this.changedFiles();
    for (const p of restored) {
      const original = this.originals.get(p)!;
      if (original.content === null) {
        fs.rmSync(p, { force: true });
        if (original.createdDir) removeEmptyDirs(path.dirname(p), original.createdDir);
      } else {
        fs.mkdirSync(path.dirname(p), { recursive: true });
        fs.writeFileSync(p, original.content, { mode: original.mode });
        fs.chmodSync(p, original.mode);
      }
    }
    return restored;
  }
}

function sameAsNow(p: string, content: Buffer | null): boolean {
  let now: Buffer | null;
  try {
    now = fs.readFileSync(p);
  } catch {
    now = null;
  }
  return content === null || now === null ? content === now : content.equals(now);
}

function topmostMissingDir(dir: string): string | null {
  let missing: string | null = null;
  for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) missing = d;
  return missing;
}

/** From `dir` up to and including `top`, removes folders that are empty. */
function removeEmptyDirs(dir: string, top: string): void {
  for (let d = dir; d === top || d.startsWith(top + path.sep); d = path.dirname(d)) {
    try {
      fs.rmdirSync(d);
    } catch {
      return; // not empty (or gone): leave it and everything above
    }
    if (d === top) return;
  }
}
