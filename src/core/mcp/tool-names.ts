/**
 * What the model calls an MCP tool: `mcp__<server>__<tool>`, in the characters every model
 * API allows in a function name (letters, digits, _ and -, at most 64: OpenAI's rule, and
 * Anthropic's, DeepSeek's and Gemini's accept it). The names of one request must differ
 * too — those APIs refuse a request with two tools of one name — and two servers can join
 * to the same name (`docs` + `search__files`, `docs__search` + `files`), one server can
 * list a tool twice. `ToolNames` hands out the names of all servers in the file's order:
 * the first keeps its name, a later one gets a hash of who it is, a tool listed again is
 * dropped; each such change is said in one line per server.
 */
import { createHash } from 'node:crypto';

const MAX_NAME = 64;
const HASH_CHARS = 6;
/** Renamed tools named in a server's line: a server with hundreds of odd names gets a count for the rest. */
const MAX_NAMED_CHANGES = 5;

/** The name asked for, made valid: changed or cut, it ends in a hash of `seed` so it stays apart. */
function validName(wanted: string, seed: string): string {
  const clean = wanted.replace(/[^A-Za-z0-9_-]/g, '_');
  return clean === wanted && clean.length <= MAX_NAME ? clean : withHash(clean, seed);
}

/** A valid name cut to leave room for `_` and six hex digits of a hash of `seed`. */
function withHash(name: string, seed: string): string {
  return `${name.slice(0, MAX_NAME - HASH_CHARS - 1)}_${createHash('sha256').update(seed).digest('hex').slice(0, HASH_CHARS)}`;
}

export function mcpToolName(server: string, tool: string): string {
  const wanted = `mcp__${server}__${tool}`;
  return validName(wanted, wanted);
}

/** One server's tools, as `ToolNames.nameServer` names them. */
export interface ServerToolNames {
  /** The model's name for each listed tool, in the listed order; null for a tool listed again (dropped). */
  names: (string | null)[];
  /** The one line that says which tools were renamed or dropped, or null when none was. */
  notice: string | null;
}

export class ToolNames {
  /** Each name handed out, and whose it is (for the line that says why another was renamed). */
  private readonly owners = new Map<string, string>();

  /** `taken`: the names of Loom's own tools, which no MCP tool may take. */
  constructor(taken: readonly string[]) {
    for (const name of taken) this.owners.set(name, `Loom's own tool`);
  }

  nameServer(server: string, tools: readonly string[]): ServerToolNames {
    const seen = new Set<string>();
    const changes: string[] = [];
    const names = tools.map((tool) => {
      if (seen.has(tool)) {
        changes.push(`"${tool}" is listed twice: the second is left out`);
        return null;
      }
      seen.add(tool);
      const { name, change } = this.unique(server, tool);
      if (change) changes.push(change);
      return name;
    });
    return { names, notice: changes.length ? noticeOf(server, changes) : null };
  }

  private unique(server: string, tool: string): { name: string; change: string | null } {
    const wanted = mcpToolName(server, tool);
    const owner = this.owners.get(wanted);
    let name = wanted;
    // The seed names the server and the tool apart (a NUL is in neither), so the hash differs
    // for each tool that asks for a taken name; a crafted name that hits one tries the next.
    for (let attempt = 0; this.owners.has(name); attempt++) name = withHash(wanted, `${server}\0${tool}\0${attempt}`);
    this.owners.set(name, `"${tool}" of "${server}"`);
    if (owner) return { name, change: `"${tool}" is offered as ${name} (${wanted} is taken by ${owner})` };
    if (name !== `mcp__${server}__${tool}`)
      return { name, change: `"${tool}" is offered as ${name} (a function name allows only A-Z, a-z, 0-9, _ and -, at most 64)` };
    return { name, change: null };
  }
}

function noticeOf(server: string, changes: string[]): string {
  const shown = changes.slice(0, MAX_NAMED_CHANGES);
  const more = changes.length - shown.length;
  return `MCP server "${server}": tool ${shown.join('; tool ')}${more ? `; and ${more} more` : ''}.`;
}
