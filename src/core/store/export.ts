import { userParts } from '../../shared/fences';
import type { ChatMessage, ChildLink, SessionRecord } from '../../shared/types';
import { isImageDataUrl } from '../security/image-data';
import { redactSecrets } from '../security/secrets';
import type { ExportFormat } from '../../shared/export-name';
import { ROLE_LABELS, changeLists, compactionHeading, detailLines, displayTitle, factsLine, shownContent } from './export-lines';

export const EXPORT_FORMAT = 'loom-session';
/**
 * Version 2 adds the fork point and the context start (docs/DESIGN.md#export-version-2),
 * version 3 a user message's image parts (docs/DESIGN.md#attachments); 1 and 2 are still read.
 */
const EXPORT_VERSION = 3;

/** The version 2 fields, read from the store beside the record. */
export interface TreeFields {
  fork: { parent_id: string; at: number } | null;
  context_start: { kept_from: number; with_system: boolean; head: ChatMessage[] };
}

/** A sub-agent's session as its parent's export carries it (docs/DESIGN.md#export-version-3): its link and its whole record. */
export interface ExportedChildSource {
  link: ChildLink;
  record: SessionRecord;
  tree: TreeFields;
}

/** What an export is rendered from, read in one transaction. */
export interface ExportSource {
  record: SessionRecord;
  tree: TreeFields;
  /** Only the JSON export carries them; Markdown and HTML show the parent alone. */
  children: readonly ExportedChildSource[];
}

// ---- rendering ----

/**
 * The HTML page is loaded on its first export: its Markdown parser and highlighter would
 * add tens of milliseconds to every `loom` start that reads the store.
 */
export async function renderExport(source: ExportSource, format: ExportFormat, now = new Date()): Promise<string> {
  const { record: session, tree, children } = redactDeep(source);
  switch (format) {
    case 'json':
      return renderJson(session, tree, children, now);
    case 'markdown':
      return renderMarkdown(session);
    case 'html':
      return (await import('./export-html')).renderHtml(session);
  }
}

/**
 * Secret-looking values are hidden in every string of the record (keys are ours). The
 * working context repeats most transcript strings, so each distinct string is redacted once.
 */
function redactDeep<T>(record: T): T {
  const seen = new Map<string, string>();
  return mapStrings(record, (text) => {
    // Image bytes are no text: nothing to redact, and megabytes of base64 to scan.
    if (isImageDataUrl(text)) return text;
    let redacted = seen.get(text);
    if (redacted === undefined) seen.set(text, (redacted = redactSecrets(text)));
    return redacted;
  });
}

/** A copy of plain JSON data with every string passed through `fn`. */
function mapStrings<T>(value: T, fn: (text: string) => string): T {
  if (typeof value === 'string') return fn(value) as T;
  if (typeof value !== 'object' || value === null) return value;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- an array inside T: the copy has its shape.
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn)) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = mapStrings((value as Record<string, unknown>)[key], fn);
  return copy as T;
}

function renderJson(s: SessionRecord, tree: TreeFields, children: readonly ExportedChildSource[], now: Date): string {
  const doc = { format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: now.toISOString(), session: sessionJson(s, tree) };
  // Only when there are some: the export of a session without sub-agents stays as it was.
  const withChildren = children.length
    ? {
        ...doc,
        children: children.map(({ link, record, tree: childTree }) => ({
          call_id: link.call_id,
          agent: link.agent,
          state: link.state,
          session: sessionJson(record, childTree),
        })),
      }
    : doc;
  return `${JSON.stringify(withChildren, null, 2)}\n`;
}

function sessionJson(s: SessionRecord, tree: TreeFields): Record<string, unknown> {
  return {
    id: s.id,
    parent_id: s.parent_id,
    fork: tree.fork,
    title: s.title,
    summary: s.summary,
    status: s.status,
    archived: s.archived,
    created_at: s.created_at,
    updated_at: s.updated_at,
    model: s.model,
    cwd: s.cwd,
    messages: s.messages,
    context_start: tree.context_start,
    transcript: s.transcript,
    compactions: s.compactions,
    plan: s.plan,
    usage: s.usage,
    transcript_facts: s.transcript_facts,
    model_changes: s.model_changes,
    // Only once an agent was chosen: the export of a session that never chose one stays as it was.
    ...(s.agent !== null || s.agent_changes.length ? { agent: s.agent, agent_changes: s.agent_changes } : {}),
  };
}

/** A fence longer than any backtick run inside, so code in tool output cannot close it. */
function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

function renderMarkdown(s: SessionRecord): string {
  const out: string[] = [`# ${displayTitle(s)}`, ''];
  if (s.title && s.summary) out.push(`> ${s.summary}`, '');
  for (const [label, value] of detailLines(s)) out.push(`- **${label}:** ${value}`);
  out.push('', '## Transcript', '');
  s.transcript.forEach((m, i) => out.push(...markdownMessage(m, factsLine(s.transcript_facts[i])), ''));
  for (const [heading, lines] of changeLists(s)) out.push(`## ${heading}`, '', ...lines.map((line) => `- ${line}`), '');
  if (s.compactions.length) {
    out.push('## Compactions', '');
    for (const c of s.compactions) {
      out.push(`- ${compactionHeading(c)}`, '', fence(c.summary), '');
    }
  }
  if (s.plan.todos.length || s.plan.scratchpad) {
    out.push('## Plan', '');
    for (const t of s.plan.todos) out.push(`- [${t.status === 'done' ? 'x' : ' '}] ${t.text} (${t.status})`);
    if (s.plan.scratchpad) out.push('', fence(s.plan.scratchpad));
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function markdownMessage(m: ChatMessage, facts: string): string[] {
  const heading = m.role === 'tool' ? `### ${ROLE_LABELS.tool} (\`${m.tool_call_id}\`)` : `### ${ROLE_LABELS[m.role]}`;
  const blocks = [heading];
  const content = shownContent(m);
  if (m.role === 'tool') blocks.push(fence(content ?? ''));
  else if (content) blocks.push(content);
  if (m.role === 'user') {
    const { files, images } = userParts(m.content);
    for (const file of files) blocks.push(`**Attached file** \`${file.name}\``, fence(file.text));
    // Embedded as data URLs: the file stays self-contained, as the JSON is.
    images.forEach((url, i) => blocks.push(`![Image ${i + 1}](${url})`));
  }
  if (m.role === 'assistant') {
    for (const call of m.tool_calls ?? []) {
      blocks.push(`**Tool call** \`${call.function.name}\` (\`${call.id}\`)`, fence(call.function.arguments, 'json'));
    }
  }
  if (facts) blocks.push(`*${facts}*`);
  return blocks.flatMap((block, i) => (i ? ['', block] : [block]));
}
