/**
 * A real MCP server over Streamable HTTP on 127.0.0.1, built from the SDK's own classes
 * (McpServer + StreamableHTTPServerTransport), for the MCP tests. It offers `lookup` (says
 * what it was asked) and records the headers of every request, so that a test can check
 * that the headers from mcp.json arrive.
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
  close(): Promise<void>;
}

export async function startMcpHttpServer(): Promise<McpHttpServer> {
  const mcp = new McpServer({ name: 'loom-test-http-server', version: '1.0.0' });
  mcp.registerTool('lookup', { description: 'Looks a word up.', inputSchema: { word: z.string() } }, ({ word }) => ({
    content: [{ type: 'text', text: `definition of ${word}: a test word` }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await mcp.connect(transport);
  const headers: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    headers.push(req.headers);
    void transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    async close() {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
