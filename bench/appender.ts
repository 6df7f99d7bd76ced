/**
 * Another connection (what `loom` in a terminal would be) appending to a session a number
 * of times a second, on its own thread: a busy server's event loop cannot slow it down.
 * The thread runs this same bundle (dist/bench.js), which hands it to runAppenderThread.
 */
import { Worker, parentPort, workerData } from 'node:worker_threads';
import { SessionStore } from '../src/core/store/session-store';

interface AppenderJob {
  dataDir: string;
  sessionId: string;
  perSecond: number;
}

/** Starts appending once the thread has opened the store; `stop` ends it and answers how many messages were appended. */
export async function startAppender(job: AppenderJob): Promise<{ stop(): Promise<number> }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: job });
  const reply = () =>
    new Promise<number>((resolve, reject) => {
      worker.once('message', (count: number) => resolve(count));
      worker.once('error', reject);
    });
  await reply(); // opened
  const appended = reply();
  return {
    stop: async () => {
      worker.postMessage('stop');
      const count = await appended;
      await worker.terminate();
      return count;
    },
  };
}

export function runAppenderThread(): void {
  const job = workerData as AppenderJob;
  const store = SessionStore.open(job.dataDir);
  let count = 0;
  parentPort!.postMessage(count);
  const timer = setInterval(() => {
    store.appendMessage(job.sessionId, { role: 'user', content: `<user_input>\nAppended ${++count}\n</user_input>` });
  }, 1000 / job.perSecond);
  parentPort!.once('message', () => {
    clearInterval(timer);
    store.close();
    parentPort!.postMessage(count);
  });
}
