/**
 * A real MCP server over Streamable HTTP on 127.0.0.1, built from the SDK's own classes
 * (McpServer + StreamableHTTPServerTransport), for the MCP tests. It offers `lookup` (says
 * what it was asked) and records the headers of every request, so that a test can check
 * that the headers from mcp.json arrive. `toolNames` adds tools that say they were called.
 * It also lists three hostile tools whose calls it answers by hand, past the SDK: `flood_json`
 * (a JSON body that never ends), `flood_sse` (an SSE event that never ends), `flood_error`
 * (an HTTP 500 whose text never ends) and `chatty_sse` (many events of 1 MiB, then the
 * result); `sent` counts what it wrote of them.
 *
 *   const mcp = await startMcpHttpServer();
 *   ... {"mcpServers": {"docs": {"url": mcp.url}}} ...
 *   await mcp.close();
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface McpHttpServer {
  url: string;
  /** The headers of each request received, in order. */
  headers: http.IncomingHttpHeaders[];
  /** Bytes of the hand-made answers written so far, and whether the client hung up on one. */
  sent: { bytes: number; hungUp: boolean };
  close(): Promise<void>;
}

/** A hostile answer stops here whatever the client does, so a client without a cap fails its test instead of filling memory. */
const FLOOD_LIMIT_BYTES = 256 * 1024 * 1024;
const MiB = 'a'.repeat(1024 * 1024);

export async function startMcpHttpServer(options: { toolNames?: string[] } = {}): Promise<McpHttpServer> {
  const mcp = new McpServer({ name: 'loom-test-http-server', version: '1.0.0' });
  for (const name of options.toolNames ?? [])
    mcp.registerTool(name, { description: 'Says it was called.' }, () => ({ content: [{ type: 'text', text: `called ${name}` }] }));
  for (const name of ['flood_json', 'flood_sse', 'flood_error', 'chatty_sse'])
    mcp.registerTool(name, { description: 'Answered by hand.' }, () => ({ content: [] }));
  mcp.registerTool('lookup', { description: 'Looks a word up.', inputSchema: { word: z.string() } }, ({ word }) => ({
    content: [{ type: 'text', text: `definition of ${word}: a test word` }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await mcp.connect(transport);
  const headers: http.IncomingHttpHeaders[] = [];
  const sent = { bytes: 0, hungUp: false };
  const server = http.createServer((req, res) => {
    headers.push(req.headers);
    if (req.method !== 'POST') return void transport.handleRequest(req, res);
    void readJson(req).then((body) => {
      const call = body as { id?: number; method?: string; params?: { name?: string } };
      const handMade = call.method === 'tools/call' ? HAND_MADE[call.params?.name ?? ''] : undefined;
      if (handMade) handMade(res, call.id!, sent);
      else void transport.handleRequest(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    sent,
    async close() {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

type HandMade = (res: http.ServerResponse, id: number, sent: { bytes: number; hungUp: boolean }) => void;

const resultStart = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`;

const HAND_MADE: Record<string, HandMade> = {
  flood_json: (res, id, sent) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    pour(res, sent, [resultStart(id)], () => MiB);
  },
  flood_sse: (res, id, sent) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    pour(res, sent, [`event: message\ndata: ${resultStart(id)}`], () => MiB);
  },
  flood_error: (res, _id, sent) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    pour(res, sent, ['Internal error: '], () => MiB);
  },
  chatty_sse: (res, id, sent) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const notice = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/chatter","params":{"text":"${MiB}"}}\n\n`;
    let left = 24;
    pour(res, sent, [], () => {
      if (left-- > 0) return notice;
      res.end(`event: message\ndata: ${resultStart(id)}after 24 MiB of chatter"}]}}\n\n`);
      return null;
    });
  },
};

/** Writes `first`, then what `next` gives (null: done), as fast as the client reads, up to FLOOD_LIMIT_BYTES. */
function pour(res: http.ServerResponse, sent: { bytes: number; hungUp: boolean }, first: string[], next: () => string | null): void {
  res.once('close', () => (sent.hungUp = !res.writableFinished));
  const write = (text: string) => {
    sent.bytes += Buffer.byteLength(text);
    return res.write(text);
  };
  first.forEach(write);
  const more = () => {
    while (!res.destroyed && sent.bytes < FLOOD_LIMIT_BYTES) {
      const text = next();
      if (text === null) return;
      if (!write(text)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end();
  };
  more();
}
