import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { contentText } from '../src/shared/attachments';
import type { ChatMessage, SessionRecord } from '../src/shared/types';

/**
 * The original design's session store, for comparison: one JSON file per session, the
 * whole file rewritten on every write, listing and search by reading and parsing every
 * file. Writes are as durable as the store's (synchronous=FULL): temp file, fsync, rename.
 */
export class JsonFileSessions {
  private readonly open = new Map<string, SessionRecord>();

  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  /** Seeding only: no fsync (like the store's seeding, batched in large transactions), so generating 10,000 sessions stays quick. */
  seed(record: SessionRecord): void {
    fs.writeFileSync(this.file(record.id), JSON.stringify(record), { mode: 0o600 });
  }

  private save(record: SessionRecord): void {
    const target = this.file(record.id);
    const temp = `${target}.tmp`;
    const fd = fs.openSync(temp, 'w', 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(record));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
  }

  private load(id: string): SessionRecord {
    return JSON.parse(fs.readFileSync(this.file(id), 'utf8')) as SessionRecord;
  }

  private loadAll(): SessionRecord[] {
    return fs
      .readdirSync(this.dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')) as SessionRecord);
  }

  list(limit: number): SessionRecord[] {
    return this.loadAll()
      .filter((s) => !s.archived)
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at))
      .slice(0, limit);
  }

  /** Case-insensitive substring match on title, summary and transcript; newest first. */
  search(query: string, limit: number): { id: string; snippet: string }[] {
    const needle = query.toLowerCase();
    const hits: { id: string; updated_at: string; snippet: string }[] = [];
    for (const s of this.loadAll()) {
      if (s.archived) continue;
      const texts = [s.title ?? '', s.summary ?? '', ...s.transcript.map((m) => (m.role === 'user' ? contentText(m.content) : (m.content ?? '')))];
      const text = texts.find((t) => t.toLowerCase().includes(needle));
      if (text === undefined) continue;
      const at = text.toLowerCase().indexOf(needle);
      hits.push({ id: s.id, updated_at: s.updated_at, snippet: text.slice(Math.max(0, at - 40), at + 40) });
    }
    return hits.sort((a, b) => b.updated_at.localeCompare(a.updated_at)).slice(0, limit);
  }

  openContext(id: string): ChatMessage[] {
    return this.load(id).messages;
  }

  /** Like the original: the session is held in memory while open, every write rewrites the file. */
  append(id: string, message: ChatMessage): void {
    let record = this.open.get(id);
    if (!record) this.open.set(id, (record = this.load(id)));
    record.transcript.push(message);
    record.messages.push(message);
    record.updated_at = new Date().toISOString();
    this.save(record);
  }

  fork(id: string): string {
    const record = this.load(id);
    const now = new Date().toISOString();
    const copy = { ...record, id: randomUUID(), parent_id: id, created_at: now, updated_at: now, status: 'saved' as const, archived: false };
    this.save(copy);
    return copy.id;
  }

  exportSession(id: string): string {
    return JSON.stringify({ format: 'loom-session', version: 1, exported_at: new Date().toISOString(), session: this.load(id) }, null, 2);
  }

  sizeOnDisk(): number {
    return fs.readdirSync(this.dir).reduce((sum, name) => sum + fs.statSync(path.join(this.dir, name)).size, 0);
  }
}
