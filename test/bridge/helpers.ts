/** Raw HTTP requests to a bridge server: node:http lets a test set any Host or Origin. */
import http from 'node:http';
import type { Handlers } from '../../src/shared/contract';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function request(port: number, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Handlers that record what reached them; any method not given fails the test if called. */
export function recordingHandlers(answers: Partial<Record<keyof Handlers, unknown>> = {}) {
  const calls: { method: string; input: unknown }[] = [];
  const handlers = new Proxy({} as Handlers, {
    get: (_target, method: string) => (input: unknown) => {
      calls.push({ method, input });
      if (!(method in answers)) throw new Error(`handler ${method} should not have been called`);
      return answers[method as keyof Handlers];
    },
  });
  return { handlers, calls };
}
