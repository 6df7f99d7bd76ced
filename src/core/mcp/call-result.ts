/**
 * An MCP tool result as the text the model gets. The tool runner then caps its size and
 * fences it as untrusted data, as for every tool: what a server returns is data, never
 * instructions. Only text is passed on; images, audio and binary resources are summarised
 * by kind and size (the model is not shown bytes it cannot read as text).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Block = CallToolResult['content'][number];

export function resultText(result: CallToolResult): string {
  const parts = result.content.map(blockText);
  if (!parts.length && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  return parts.length ? parts.join('\n') : '(no output)';
}

function blockText(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} (${block.mimeType}, ${base64Bytes(block.data)} bytes) not shown]`;
    case 'resource': {
      const r = block.resource;
      return 'text' in r ? `[resource ${r.uri}]\n${r.text}` : `[resource ${r.uri} (${r.mimeType ?? 'binary'}, ${base64Bytes(r.blob)} bytes) not shown]`;
    }
    case 'resource_link':
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
  }
}

function base64Bytes(data: string): number {
  return Math.floor((data.replace(/=+$/, '').length * 3) / 4);
}
