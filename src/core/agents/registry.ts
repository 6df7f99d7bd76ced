/**
 * Every agent a session may choose, from where they are defined, in precedence order: the
 * project's files (`.loom/agents`, then Claude Code's `.claude/agents`, then opencode's
 * `.opencode/agent` and `.opencode/agents`), then `<data dir>/agents`, then the built-ins.
 * A name defined in a place of higher precedence hides the same name further down; the
 * built-ins' names are reserved. A bad file is one problem line and the others still load.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../errors';
import { BUILT_IN_AGENTS } from './built-in';
import type { AgentDefinition, AgentFormat, AgentProblem, AgentScope } from './definition';
import { parseAgentFile } from './formats';

/** An agent file bigger than this is refused unread. */
const MAX_AGENT_FILE = 256 * 1024;

export interface AgentRegistry {
  /** In precedence order of where they were found, built-ins last. */
  agents: AgentDefinition[];
  problems: AgentProblem[];
}

interface Place {
  dir: string;
  scope: Exclude<AgentScope, 'built-in'>;
  format: Exclude<AgentFormat, 'built-in'>;
}

function agentPlaces(projectDir: string | null, dataDir: string): Place[] {
  const project: Place[] = projectDir
    ? [
        { dir: path.join(projectDir, '.loom', 'agents'), scope: 'project', format: 'loom' },
        { dir: path.join(projectDir, '.claude', 'agents'), scope: 'project', format: 'claude-code' },
        { dir: path.join(projectDir, '.opencode', 'agent'), scope: 'project', format: 'opencode' },
        { dir: path.join(projectDir, '.opencode', 'agents'), scope: 'project', format: 'opencode' },
      ]
    : [];
  return [...project, { dir: path.join(dataDir, 'agents'), scope: 'data', format: 'loom' }];
}

/** `knownTools`: the names of the tools a session of this folder has (Loom's and the MCP servers'). */
export async function loadAgents(opts: { projectDir: string | null; dataDir: string; knownTools: readonly string[] }): Promise<AgentRegistry> {
  const agents: AgentDefinition[] = [];
  const problems: AgentProblem[] = [];
  const reserved = new Set(BUILT_IN_AGENTS.map((a) => a.name));
  const seen = new Map<string, AgentDefinition>();
  for (const place of agentPlaces(opts.projectDir, opts.dataDir)) {
    for (const file of await markdownFiles(place.dir, place.scope === 'project' ? opts.projectDir : null, problems)) {
      const shown = opts.projectDir && place.scope === 'project' ? path.relative(opts.projectDir, file) : file;
      const parsed = await readAgent(place.format, file, shown, opts.knownTools);
      problems.push(...parsed.problems);
      const spec = parsed.spec;
      if (!spec) continue;
      const earlier = seen.get(spec.name);
      if (reserved.has(spec.name)) problems.push({ file: shown, field: 'name', message: `"${spec.name}" is a built-in agent's name; choose another` });
      else if (earlier?.scope === place.scope) {
        problems.push({ file: shown, field: 'name', message: `"${spec.name}" is already defined by ${earlier.file}; this file is ignored` });
      } else if (!earlier) {
        const agent: AgentDefinition = { ...spec, scope: place.scope, format: place.format, file: shown };
        seen.set(spec.name, agent);
        agents.push(agent);
      }
    }
  }
  return { agents: [...agents, ...BUILT_IN_AGENTS], problems };
}

async function readAgent(format: Place['format'], file: string, shown: string, knownTools: readonly string[]) {
  try {
    const stat = await fs.lstat(file);
    if (!stat.isFile()) return { spec: null, problems: [{ file: shown, message: 'not a regular file (a link?); ignored' }] };
    if (stat.size > MAX_AGENT_FILE) return { spec: null, problems: [{ file: shown, message: 'over 256 KB; ignored' }] };
    return parseAgentFile(format, shown, await fs.readFile(file, 'utf8'), knownTools);
  } catch (err) {
    return { spec: null, problems: [{ file: shown, message: `could not be read: ${errorMessage(err)}` }] };
  }
}

/**
 * The folder's `*.md` files, sorted. A project's folder must really be inside the project
 * (a link out of it would put another file into the system prompt the model is sent).
 */
async function markdownFiles(dir: string, within: string | null, problems: AgentProblem[]): Promise<string[]> {
  let real: string;
  try {
    real = await fs.realpath(dir);
  } catch {
    return []; // no such folder: no agents there
  }
  if (within !== null && !real.startsWith(path.join(await fs.realpath(within), path.sep))) {
    problems.push({ file: path.relative(within, dir), message: 'leads outside the project folder; ignored' });
    return [];
  }
  try {
    const names = await fs.readdir(real);
    return names
      .filter((n) => n.toLowerCase().endsWith('.md'))
      .sort()
      .map((n) => path.join(real, n));
  } catch (err) {
    problems.push({ file: dir, message: `could not be read: ${errorMessage(err)}` });
    return [];
  }
}

/** The agent named `name`, or null. */
export function findAgent(registry: AgentRegistry, name: string): AgentDefinition | null {
  return registry.agents.find((a) => a.name === name) ?? null;
}
