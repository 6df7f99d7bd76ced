/**
 * The MCP server dialog's form as text fields, and back (docs/DESIGN.md#mcp-servers):
 * arguments one per line; environment variables `NAME=value` and headers `Name: value`,
 * one per line, where a saved value shows as `***` and is kept as saved (the dialog never
 * holds it).
 */
import { KEEP_SAVED_VALUE, type McpServerEdit, type McpServerSettings } from '../../shared/mcp';

/** What stands for a saved value the dialog does not know. */
export const SAVED_VALUE_MARK = '***';

export interface McpForm {
  name: string;
  transport: 'stdio' | 'http';
  command: string;
  args: string;
  env: string;
  sandbox: boolean;
  url: string;
  headers: string;
  readOnly: boolean;
  readOnlyTools: string;
  disabled: boolean;
}

export const EMPTY_MCP_FORM: McpForm = {
  name: '',
  transport: 'stdio',
  command: '',
  args: '',
  env: '',
  sandbox: true,
  url: '',
  headers: '',
  readOnly: false,
  readOnlyTools: '',
  disabled: false,
};

export function formOf(name: string, settings: McpServerSettings): McpForm {
  const shared = { ...EMPTY_MCP_FORM, name, readOnly: settings.readOnly, readOnlyTools: settings.readOnlyTools.join(', '), disabled: settings.disabled };
  if (settings.transport === 'http') {
    return { ...shared, transport: 'http', url: settings.url, headers: settings.headerNames.map((h) => `${h}: ${SAVED_VALUE_MARK}`).join('\n') };
  }
  return {
    ...shared,
    command: settings.command,
    args: settings.args.join('\n'),
    env: settings.envNames.map((n) => `${n}=${SAVED_VALUE_MARK}`).join('\n'),
    sandbox: settings.sandbox,
  };
}

/** The entry to save, or the one sentence saying which line cannot be read. */
export function editOf(form: McpForm): { edit: McpServerEdit } | { error: string } {
  const flags = {
    readOnly: form.readOnly,
    readOnlyTools: form.readOnlyTools
      .split(/[\s,]+/)
      .map((t) => t.trim())
      .filter(Boolean),
    disabled: form.disabled,
  };
  if (form.transport === 'http') {
    const headers = pairs(form.headers, { separator: ':', what: 'header', name: HEADER_NAME, rule: 'a header name is one word of letters, digits and -' });
    return 'error' in headers ? headers : { edit: { transport: 'http', url: form.url.trim(), headers: headers.values, ...flags } };
  }
  const env = pairs(form.env, {
    separator: '=',
    what: 'environment',
    name: ENV_NAME,
    rule: 'a variable name is letters, digits and _, not starting with a digit',
  });
  if ('error' in env) return env;
  const args = form.args.split('\n').filter((line) => line.trim() !== '');
  return { edit: { transport: 'stdio', command: form.command.trim(), args, env: env.values, sandbox: form.sandbox, ...flags } };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function pairs(
  text: string,
  { separator, what, name, rule }: { separator: string; what: string; name: RegExp; rule: string },
): { values: Record<string, string | null> } | { error: string } {
  const values: Record<string, string | null> = {};
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const at = line.indexOf(separator);
    const key = line.slice(0, at).trim();
    if (at < 1 || key === '') return { error: `Line ${i + 1} of the ${what} list needs NAME${separator}value.` };
    if (!name.test(key)) return { error: `Line ${i + 1} of the ${what} list: ${key} is not a name Loom can pass on (${rule}).` };
    const value = line.slice(at + 1).trim();
    values[key] = value === SAVED_VALUE_MARK ? KEEP_SAVED_VALUE : value;
  }
  return { values };
}
