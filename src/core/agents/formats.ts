/**
 * The three agent file formats Loom reads, each mapped onto Loom's definition: Loom's own
 * (`.loom/agents`), Claude Code's (`.claude/agents`) and opencode's (`.opencode/agent` and
 * `.opencode/agents`), read unchanged. A field Loom does not support is named in one line;
 * a tool Loom does not have is left out and named (the agent narrows, never widens); a
 * field of the wrong shape makes the file bad, named with its field.
 */
import { errorMessage } from '../errors';
import { agentDefinitionSchema, type AgentAccess, type AgentFormat, type AgentProblem, type AgentSpec } from './definition';
import { splitFrontMatter, type YamlMap, type YamlValue } from './front-matter';

export interface ParsedAgent {
  spec: AgentSpec | null;
  problems: AgentProblem[];
}

/** What a format's mapping needs to know: the file (for its lines), its stem, and the session's tool names. */
interface Context {
  file: string;
  stem: string;
  knownTools: readonly string[];
  problems: AgentProblem[];
}

/** Thrown inside a mapping: the file is bad, because of this field. */
class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export function parseAgentFile(format: Exclude<AgentFormat, 'built-in'>, file: string, text: string, knownTools: readonly string[]): ParsedAgent {
  const ctx: Context = { file, stem: fileStem(file), knownTools, problems: [] };
  let data: YamlMap;
  let body: string;
  try {
    ({ data, body } = splitFrontMatter(text));
  } catch (err) {
    return { spec: null, problems: [{ file, message: errorMessage(err) }] };
  }
  try {
    const mapped = MAPPINGS[format](data, body, ctx);
    if (mapped === null) return { spec: null, problems: ctx.problems };
    const checked = agentDefinitionSchema.safeParse(mapped);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      return { spec: null, problems: [...ctx.problems, { file, field: issue.path.join('.') || undefined, message: issue.message }] };
    }
    return { spec: checked.data, problems: ctx.problems };
  } catch (err) {
    if (!(err instanceof FieldError)) throw err;
    return { spec: null, problems: [...ctx.problems, { file, field: err.field, message: err.message }] };
  }
}

type Mapping = (data: YamlMap, body: string, ctx: Context) => Record<string, unknown> | null;

const LOOM_FIELDS = new Set(['name', 'description', 'tools', 'model', 'mode', 'maxTurns', 'maxToolCalls']);

const loomMapping: Mapping = (data, body, ctx) => {
  unsupported(
    ctx,
    Object.keys(data).filter((k) => !LOOM_FIELDS.has(k)),
  );
  const mode = optionalString(data, 'mode');
  if (mode !== undefined && !isAccess(mode)) throw new FieldError('mode', `"${mode}" is not one of readOnly, default, acceptEdits, dangerouslySkipPermissions`);
  return {
    name: optionalString(data, 'name') ?? ctx.stem,
    description: optionalString(data, 'description'),
    prompt: body,
    tools: data.tools === undefined ? undefined : knownOnly(ctx, 'tools', stringList(data, 'tools'), (name) => [name]),
    model: optionalString(data, 'model'),
    access: mode,
    maxTurns: optionalNumber(data, 'maxTurns'),
    maxToolCalls: optionalNumber(data, 'maxToolCalls'),
  };
};

/** Claude Code's tool names (its subagents documentation) and the Loom tools each stands for. */
const CLAUDE_TOOLS: Record<string, string[]> = {
  Read: ['read_file'],
  Write: ['write_file'],
  Edit: ['edit_file'],
  MultiEdit: ['edit_file'],
  Glob: ['glob_files'],
  Grep: ['grep'],
  LS: ['glob_files'],
  Bash: ['run_bash'],
  WebFetch: ['webfetch'],
  TodoWrite: ['todo_append', 'todo_update', 'todo_list'],
};

const CLAUDE_MODES: Record<string, AgentAccess> = {
  default: 'default',
  acceptEdits: 'acceptEdits',
  plan: 'readOnly',
  bypassPermissions: 'dangerouslySkipPermissions',
  // Claude Code's dontAsk refuses whatever is not allowed beforehand: nothing here is, so nothing changes.
  dontAsk: 'readOnly',
};

/** Claude's model aliases name Anthropic's models, which the user's server need not have. */
const CLAUDE_ALIASES = new Set(['sonnet', 'opus', 'haiku']);

const CLAUDE_FIELDS = new Set(['name', 'description', 'tools', 'disallowedTools', 'model', 'permissionMode', 'maxTurns']);

const claudeMapping: Mapping = (data, body, ctx) => {
  unsupported(
    ctx,
    Object.keys(data).filter((k) => !CLAUDE_FIELDS.has(k)),
  );
  const mapName = (name: string) => CLAUDE_TOOLS[name] ?? (ctx.knownTools.includes(name) ? [name] : null);
  const listed = data.tools === undefined ? undefined : knownOnly(ctx, 'tools', commaList(data, 'tools'), mapName);
  const disallowed = data.disallowedTools === undefined ? [] : knownOnly(ctx, 'disallowedTools', commaList(data, 'disallowedTools'), mapName);
  const tools = disallowed.length ? (listed ?? ctx.knownTools).filter((t) => !disallowed.includes(t)) : listed;
  const mode = optionalString(data, 'permissionMode');
  if (mode !== undefined && !(mode in CLAUDE_MODES)) note(ctx, 'permissionMode', `"${mode}" is not a mode Loom knows; ignored`);
  return {
    name: optionalString(data, 'name') ?? ctx.stem,
    description: optionalString(data, 'description'),
    prompt: body,
    tools,
    model: claudeModel(ctx, optionalString(data, 'model')),
    access: mode === undefined ? undefined : CLAUDE_MODES[mode],
    maxTurns: optionalNumber(data, 'maxTurns'),
  };
};

function claudeModel(ctx: Context, model: string | undefined): string | undefined {
  if (model === undefined || model === 'inherit') return undefined;
  if (!CLAUDE_ALIASES.has(model)) return model;
  note(ctx, 'model', `"${model}" is a Claude model alias; the session's model is used`);
  return undefined;
}

/** opencode's tool names (its agents and tools documentation) and the Loom tools each stands for. */
const OPENCODE_TOOLS: Record<string, string[]> = {
  read: ['read_file'],
  write: ['write_file'],
  edit: ['edit_file'],
  patch: ['edit_file'],
  bash: ['run_bash'],
  glob: ['glob_files'],
  grep: ['grep'],
  list: ['glob_files'],
  webfetch: ['webfetch'],
  todowrite: ['todo_append', 'todo_update'],
  todoread: ['todo_list'],
};

/** A permission's action (v1 `permission` keys, v2 `permissions` actions) and the tools it governs. */
const OPENCODE_ACTIONS: Record<string, string[]> = {
  edit: ['write_file', 'edit_file'],
  bash: ['run_bash'],
  shell: ['run_bash'],
  webfetch: ['webfetch'],
};

const OPENCODE_FIELDS = new Set(['description', 'mode', 'model', 'tools', 'permission', 'permissions', 'steps', 'maxSteps', 'disable', 'disabled']);

const opencodeMapping: Mapping = (data, body, ctx) => {
  if (data.disable === true || data.disabled === true) return null;
  unsupported(
    ctx,
    Object.keys(data).filter((k) => !OPENCODE_FIELDS.has(k)),
  );
  const mode = optionalString(data, 'mode');
  if (mode !== undefined && !['primary', 'subagent', 'all'].includes(mode)) throw new FieldError('mode', `"${mode}" is not primary, subagent or all`);
  const narrowing: Narrowing = { removed: new Set(), access: undefined };
  if (data.tools !== undefined) opencodeTools(ctx, map(data, 'tools'), narrowing);
  if (data.permission !== undefined) opencodePermission(ctx, map(data, 'permission'), narrowing);
  if (data.permissions !== undefined) opencodePermissions(ctx, data.permissions, narrowing);
  return {
    name: ctx.stem,
    description: optionalString(data, 'description'),
    prompt: body,
    tools: narrowing.removed.size ? ctx.knownTools.filter((t) => !narrowing.removed.has(t)) : undefined,
    model: opencodeModel(ctx, optionalString(data, 'model')),
    access: narrowing.access,
    maxTurns: optionalNumber(data, 'steps') ?? optionalNumber(data, 'maxSteps'),
  };
};

/** What opencode's tool switches and permissions take away: tools, and a ceiling of `default` for what they ask about. */
interface Narrowing {
  removed: Set<string>;
  access: AgentAccess | undefined;
}

function opencodeTools(ctx: Context, tools: YamlMap, narrowing: Narrowing): void {
  const unknown: string[] = [];
  for (const [name, on] of Object.entries(tools)) {
    if (typeof on !== 'boolean') throw new FieldError(`tools.${name}`, 'must be true or false');
    const loom = OPENCODE_TOOLS[name] ?? (ctx.knownTools.includes(name) ? [name] : null);
    if (!loom) unknown.push(name);
    else if (!on) loom.forEach((t) => narrowing.removed.add(t));
  }
  if (unknown.length) note(ctx, 'tools', `no tool named ${unknown.join(', ')} in Loom; ignored`);
}

function opencodePermission(ctx: Context, permission: YamlMap, narrowing: Narrowing): void {
  for (const [action, rule] of Object.entries(permission)) {
    const field = `permission.${action}`;
    if (typeof rule === 'string') applyEffect(ctx, field, action, rule, narrowing);
    else if (rule !== null && typeof rule === 'object' && !Array.isArray(rule)) {
      // Patterns (`"git push": ask`): Loom asks per its own rules, so any pattern that asks or denies makes the whole action asked.
      const effects = Object.entries(rule).map(([pattern, effect]) => ({ pattern, effect: typeof effect === 'string' ? effect : '' }));
      const all = effects.find((e) => e.pattern === '*')?.effect;
      if (all === 'deny' && effects.every((e) => e.effect === 'deny')) applyEffect(ctx, field, action, 'deny', narrowing);
      else if (effects.some((e) => e.effect !== 'allow')) {
        note(ctx, field, 'patterns are not supported; every such action is asked');
        applyEffect(ctx, field, action, 'ask', narrowing);
      }
    } else throw new FieldError(field, 'must be allow, ask, deny or a map of patterns');
  }
}

/** opencode's v2 form: a list of `{action, resource, effect}`. */
function opencodePermissions(ctx: Context, list: YamlValue, narrowing: Narrowing): void {
  if (!Array.isArray(list)) throw new FieldError('permissions', 'must be a list of {action, resource, effect}');
  list.forEach((item, i) => {
    const field = `permissions[${i}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new FieldError(field, 'must be {action, resource, effect}');
    const { action, resource, effect } = item;
    if (typeof action !== 'string' || typeof effect !== 'string') throw new FieldError(field, 'needs an action and an effect');
    if (resource === undefined || resource === '*') applyEffect(ctx, field, action, effect, narrowing);
    else if (effect !== 'allow') {
      note(ctx, field, 'a resource other than "*" is not supported; every such action is asked');
      applyEffect(ctx, field, action, 'ask', narrowing);
    }
  });
}

function applyEffect(ctx: Context, field: string, action: string, effect: string, narrowing: Narrowing): void {
  if (!['allow', 'ask', 'deny'].includes(effect)) throw new FieldError(field, `"${effect}" is not allow, ask or deny`);
  const tools = OPENCODE_ACTIONS[action];
  if (!tools) return note(ctx, field, `"${action}" is not an action Loom governs; ignored`);
  if (effect === 'deny') tools.forEach((t) => narrowing.removed.add(t));
  // "allow" cannot widen the session's mode; "ask" caps it at default.
  if (effect === 'ask') narrowing.access = 'default';
}

/** opencode names a model with its provider ("anthropic/claude-…"); Loom talks to one server and routes no providers. */
function opencodeModel(ctx: Context, model: string | undefined): string | undefined {
  if (model === undefined || !model.includes('/')) return model;
  note(ctx, 'model', `"${model}" names a provider; the session's model is used`);
  return undefined;
}

const MAPPINGS: Record<Exclude<AgentFormat, 'built-in'>, Mapping> = { loom: loomMapping, 'claude-code': claudeMapping, opencode: opencodeMapping };

/** The names mapped to Loom tools; those with none are left out and named in one line. */
function knownOnly(ctx: Context, field: string, names: string[], toLoom: (name: string) => string[] | null): string[] {
  const unknown: string[] = [];
  const out = new Set<string>();
  for (const name of names) {
    const loom = toLoom(name)?.filter((t) => ctx.knownTools.includes(t));
    if (!loom?.length) unknown.push(name);
    else loom.forEach((t) => out.add(t));
  }
  if (unknown.length) note(ctx, field, `no tool named ${unknown.join(', ')} in Loom; left out`);
  return [...out];
}

function unsupported(ctx: Context, fields: string[]): void {
  if (fields.length) ctx.problems.push({ file: ctx.file, message: `${fields.join(', ')}: not supported by Loom; ignored` });
}

function note(ctx: Context, field: string, message: string): void {
  ctx.problems.push({ file: ctx.file, field, message });
}

function isAccess(value: string): value is AgentAccess {
  return ['readOnly', 'default', 'acceptEdits', 'dangerouslySkipPermissions'].includes(value);
}

function optionalString(data: YamlMap, field: string): string | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw new FieldError(field, 'must be text');
  return value;
}

function optionalNumber(data: YamlMap, field: string): number | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') throw new FieldError(field, 'must be a number');
  return value;
}

function map(data: YamlMap, field: string): YamlMap {
  const value = data[field];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FieldError(field, 'must be a map of "name: value" lines');
  return value;
}

/** A list, in either YAML form, of text items. */
function stringList(data: YamlMap, field: string): string[] {
  const value = data[field];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new FieldError(field, 'must be a list of names');
  return value;
}

/** Claude Code writes tool lists as one comma-separated string; a YAML list is read too. */
function commaList(data: YamlMap, field: string): string[] {
  const value = data[field];
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return stringList(data, field);
}

function fileStem(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  return base.replace(/\.md$/i, '');
}
