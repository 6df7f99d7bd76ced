import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { SessionStore } from '../../src/core/store/session-store';
import type { ChatMessage } from '../../src/shared/types';

const cleanups: (() => void)[] = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A fresh temp folder, removed after the test. */
export function tempDir(prefix = 'loom-store-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A store on a fresh data folder, closed after the test. */
export function openStore(dataDir = path.join(tempDir(), 'data')): SessionStore {
  const store = SessionStore.open(dataDir);
  cleanups.push(() => store.close());
  return store;
}

export function onCleanup(fn: () => void): void {
  cleanups.push(fn);
}

export const system = (content = 'You are Loom.'): ChatMessage => ({ role: 'system', content });
export const user = (content: string): ChatMessage => ({ role: 'user', content });
export const assistant = (content: string | null, calls?: { id: string; name: string; args: string }[]): ChatMessage =>
  calls
    ? { role: 'assistant', content, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) }
    : { role: 'assistant', content };
export const tool = (tool_call_id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id, content });

/** A short conversation with a tool round trip. */
export function conversation(topic = 'the parser'): ChatMessage[] {
  return [
    system(),
    user(`Please fix ${topic}.`),
    assistant(null, [{ id: 'call_1', name: 'read_file', args: '{"path":"src/parser.ts"}' }]),
    tool('call_1', 'export function parse() { return 1; }'),
    assistant(`I fixed ${topic}.`),
  ];
}

/** Reads a file's bytes, for "left untouched" checks. */
export function bytes(file: string): Buffer {
  return fs.readFileSync(file);
}

export function mode(file: string): number {
  return fs.statSync(file).mode & 0o777;
}
