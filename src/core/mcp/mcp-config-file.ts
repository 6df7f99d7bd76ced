/**
 * Changes to mcp.json from the settings dialog (docs/DESIGN.md#mcp-servers): one server's
 * entry added, replaced, renamed or removed, every other byte of meaning kept (the other
 * servers, their order, keys the dialog does not edit, the secrets it never sees). The file
 * is replaced atomically and stays private; one that Loom cannot read as a configuration is
 * refused untouched, never overwritten.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KEEP_SAVED_VALUE, type McpServerEdit } from '../../shared/mcp';
import { errorMessage, LoomError } from '../errors';
import { parseMcpConfig } from './mcp-config';

type Entry = Record<string, unknown>;
type Servers = Record<string, Entry>;

/** Saves `edit` as server `name`, in place of `previous` (a rename) or of `name`, else at the end. */
export async function saveMcpServer(file: string, name: string, edit: McpServerEdit, previous?: string): Promise<void> {
  await changeServers(file, (servers) => {
    const replaced = previous ?? name;
    if (previous !== undefined && !(previous in servers)) throw new LoomError(`There is no MCP server "${previous}" in ${file}.`, 'not_found');
    if (name !== replaced && name in servers) throw new LoomError(`An MCP server named "${name}" is already configured.`, 'bad_input');
    const entry = entryFor(edit, servers[replaced]);
    const entries = Object.entries(servers);
    if (!(replaced in servers)) return Object.fromEntries([...entries, [name, entry]]);
    return Object.fromEntries(entries.map(([key, value]) => (key === replaced ? [name, entry] : [key, value])));
  });
}

export async function removeMcpServer(file: string, name: string): Promise<void> {
  await changeServers(file, (servers) => {
    if (!(name in servers)) throw new LoomError(`There is no MCP server "${name}" in ${file}.`, 'not_found');
    return Object.fromEntries(Object.entries(servers).filter(([key]) => key !== name));
  });
}

/** The entry to write: the edited keys, with the values kept that the dialog left as saved, and the keys it does not edit as they were. */
function entryFor(edit: McpServerEdit, before: Entry | undefined): Entry {
  const flags = {
    ...(edit.readOnly && { readOnly: true }),
    ...(edit.readOnlyTools.length && { readOnlyTools: edit.readOnlyTools }),
    ...(edit.disabled && { disabled: true }),
  };
  const kept = pick(before, ['startupTimeoutSec', ...(edit.transport === 'http' ? ['type'] : [])]);
  if (edit.transport === 'http') {
    const headers = withSaved(edit.headers, before?.headers, 'header');
    return { url: edit.url, ...(Object.keys(headers).length && { headers }), ...flags, ...kept };
  }
  const env = withSaved(edit.env, before?.env, 'environment variable');
  return {
    command: edit.command,
    ...(edit.args.length && { args: edit.args }),
    ...(Object.keys(env).length && { env }),
    ...(!edit.sandbox && { sandbox: false }),
    ...flags,
    ...kept,
  };
}

function withSaved(edited: Record<string, string | null>, saved: unknown, what: string): Record<string, string> {
  const savedValues = isRecord(saved) ? saved : {};
  return Object.fromEntries(
    Object.entries(edited).map(([key, value]) => {
      if (value !== KEEP_SAVED_VALUE) return [key, value];
      const old = savedValues[key];
      if (typeof old !== 'string') throw new LoomError(`The ${what} ${key} has no saved value to keep; type one.`, 'bad_input');
      return [key, old];
    }),
  );
}

async function changeServers(file: string, change: (servers: Servers) => Servers): Promise<void> {
  const target = await realTarget(file);
  const document = await readDocument(target);
  const next = { ...document, mcpServers: change(document.mcpServers) };
  const text = `${JSON.stringify(next, null, 2)}\n`;
  // What Loom would refuse to start from is never written.
  const checked = parseMcpConfig(text, file);
  if (checked.problem !== null) throw new LoomError(checked.problem.replace(/; fix it and start Loom again\.$/, '; nothing was saved.'), 'bad_input');
  await replaceFile(target, text);
}

/** The file to replace: a symbolic link (a dotfiles checkout) keeps pointing at it. */
async function realTarget(file: string): Promise<string> {
  try {
    return await fs.promises.realpath(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return file;
    throw new LoomError(`${file} could not be read (${errorMessage(err)}).`, 'io');
  }
}

async function readDocument(file: string): Promise<{ mcpServers: Servers } & Entry> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { mcpServers: {} };
    throw new LoomError(`${file} could not be read (${errorMessage(err)}).`, 'io');
  }
  const checked = parseMcpConfig(text, file);
  if (checked.problem !== null)
    throw new LoomError(checked.problem.replace(/; fix it and start Loom again\.$/, '; fix it by hand first: nothing was changed.'), 'bad_input');
  return JSON.parse(text) as { mcpServers: Servers } & Entry;
}

/** Written beside the file, flushed, then renamed over it: a crash leaves the old file or the new one, never half of either. */
async function replaceFile(file: string, text: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  const handle = await fs.promises.open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.promises.rename(temporary, file);
  } catch (err) {
    await fs.promises.rm(temporary, { force: true });
    throw new LoomError(`${file} could not be written (${errorMessage(err)}).`, 'io');
  }
}

function pick(entry: Entry | undefined, keys: string[]): Entry {
  return Object.fromEntries(keys.flatMap((key) => (entry && key in entry ? [[key, entry[key]]] : [])));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
