import { toolText, userParts } from '../../shared/fences';
import type { AgentChange, ChatMessage, Compaction, MessageFacts, ModelChange, SessionRecord } from '../../shared/types';
import { isImageDataUrl } from '../security/image-data';
import { redactSecrets } from '../security/secrets';
import type { ExportFormat } from '../../shared/export-name';

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

// ---- rendering ----

export function renderExport(record: SessionRecord, tree: TreeFields, format: ExportFormat, now = new Date()): string {
  const { session, tree: redactedTree } = redactDeep({ session: record, tree });
  switch (format) {
    case 'json':
      return renderJson(session, redactedTree, now);
    case 'markdown':
      return renderMarkdown(session);
    case 'html':
      return renderHtml(session);
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

function renderJson(s: SessionRecord, tree: TreeFields, now: Date): string {
  const session = {
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
  return `${JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: now.toISOString(), session }, null, 2)}\n`;
}

function displayTitle(s: SessionRecord): string {
  return s.title || s.summary || 'Untitled session';
}

const ROLE_LABELS: Record<ChatMessage['role'], string> = {
  system: 'System',
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool result',
};

function detailLines(s: SessionRecord): [string, string][] {
  const u = s.usage;
  return [
    ['Session', s.id],
    ...(s.parent_id ? ([['Forked from', s.parent_id]] as [string, string][]) : []),
    ['Status', `${s.status}${s.archived ? ' (archived)' : ''}`],
    ['Created', s.created_at],
    ['Updated', s.updated_at],
    ['Model', s.model ?? '-'],
    ...(s.agent !== null ? ([['Agent', s.agent]] as [string, string][]) : []),
    ['Folder', s.cwd ?? '-'],
    ['Messages', String(s.transcript.length)],
    ['Compactions', String(s.compactions.length)],
    ['Usage', `${u.calls} calls, ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens, $${u.cost_usd.toFixed(4)}`],
  ];
}

/** A message's facts in one short line, as Markdown and HTML both show them; '' when there are none. */
function factsLine(facts: MessageFacts | null | undefined): string {
  if (!facts) return '';
  const parts = [facts.at];
  if (facts.model) parts.push(facts.model);
  if (facts.prompt_tokens !== undefined && facts.completion_tokens !== undefined) {
    parts.push(`${facts.estimated ? '~' : ''}${facts.prompt_tokens} in / ${facts.completion_tokens} out tokens`);
  }
  if (facts.cost_usd) parts.push(`$${facts.cost_usd.toFixed(4)}`);
  if (facts.latency_ms !== undefined) parts.push(`first token after ${Math.round(facts.latency_ms)} ms`);
  if (facts.tokens_per_second !== undefined) parts.push(`${facts.tokens_per_second.toFixed(1)} tokens/s`);
  return parts.join(' · ');
}

function modelChangeLine(c: ModelChange): string {
  return `${c.at}: model changed from ${c.from ?? 'none'} to ${c.to} (from message ${c.transcript_index + 1})`;
}

function agentChangeLine(c: AgentChange): string {
  return `${c.at}: agent changed from ${c.from ?? 'build'} to ${c.to} (from message ${c.transcript_index + 1})`;
}

/** The model changes and the agent changes, each under its heading, as Markdown and HTML both list them. */
function changeLists(s: SessionRecord): [string, string[]][] {
  const lists: [string, string[]][] = [
    ['Model changes', s.model_changes.map(modelChangeLine)],
    ['Agent changes', s.agent_changes.map(agentChangeLine)],
  ];
  return lists.filter(([, lines]) => lines.length > 0);
}

/** When a compaction happened and what it saved, as Markdown and HTML both show it. */
function compactionHeading(c: Compaction): string {
  return `${c.at}: ${c.before_tokens} → ${c.after_tokens} tokens`;
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

/**
 * What a reader sees of a message: the user's words and tool output without the fences Loom
 * keeps around them for the model (the JSON export keeps them: it is what the model saw).
 */
function shownContent(m: ChatMessage): string | null {
  if (m.role === 'user') return userParts(m.content).text;
  if (m.role === 'tool') return toolText(m.content);
  return m.content;
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

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

const HTML_STYLE = `
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; background: #fafafa; }
  h1 { font-size: 1.5rem; } dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
  dt { font-weight: 600; } dd { margin: 0; }
  .msg { border: 1px solid #ddd; border-radius: 8px; margin: 1rem 0; padding: .5rem 1rem; background: #fff; }
  .msg h3 { margin: .2rem 0; font-size: .85rem; text-transform: uppercase; letter-spacing: .05em; color: #555; }
  .user { border-left: 4px solid #2f6fde; } .assistant { border-left: 4px solid #2a9d5b; }
  .tool { border-left: 4px solid #b7791f; } .system { border-left: 4px solid #888; }
  img { max-width: 100%; max-height: 24rem; display: block; margin: .5rem 0; }
  pre { white-space: pre-wrap; word-break: break-word; background: #f3f3f3; padding: .5rem; border-radius: 6px; }
  .text { white-space: pre-wrap; } .facts { margin: 0; font-size: .8rem; color: #555; }
`;

function renderHtml(s: SessionRecord): string {
  const details = detailLines(s)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`)
    .join('');
  const messages = s.transcript.map((m, i) => htmlMessage(m, factsLine(s.transcript_facts[i]))).join('\n');
  const modelChanges = changeLists(s)
    .map(([heading, lines]) => `<h2>${heading}</h2><ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`)
    .join('');
  const compactions = s.compactions.length
    ? `<h2>Compactions</h2>${s.compactions.map((c) => `<p>${escapeHtml(compactionHeading(c))}</p><pre>${escapeHtml(c.summary)}</pre>`).join('')}`
    : '';
  const plan =
    s.plan.todos.length || s.plan.scratchpad
      ? `<h2>Plan</h2><ul>${s.plan.todos.map((t) => `<li>${escapeHtml(`[${t.status}] ${t.text}`)}</li>`).join('')}</ul>${s.plan.scratchpad ? `<pre>${escapeHtml(s.plan.scratchpad)}</pre>` : ''}`
      : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(displayTitle(s))}</title>
<style>${HTML_STYLE}</style>
</head>
<body>
<h1>${escapeHtml(displayTitle(s))}</h1>
${s.title && s.summary ? `<p>${escapeHtml(s.summary)}</p>` : ''}
<dl>${details}</dl>
<h2>Transcript</h2>
${messages}
${modelChanges}
${compactions}
${plan}
</body>
</html>
`;
}

function htmlMessage(m: ChatMessage, facts: string): string {
  const label = m.role === 'tool' ? `${ROLE_LABELS.tool} (${m.tool_call_id})` : ROLE_LABELS[m.role];
  const content = shownContent(m);
  const body = m.role === 'tool' ? `<pre>${escapeHtml(content ?? '')}</pre>` : content ? `<div class="text">${escapeHtml(content)}</div>` : '';
  const { files, images } = m.role === 'user' ? userParts(m.content) : { files: [], images: [] };
  const attached = [
    ...files.map((file) => `<p>Attached file <code>${escapeHtml(file.name)}</code></p><pre>${escapeHtml(file.text)}</pre>`),
    ...images.map((url, i) => `<img src="${escapeHtml(url)}" alt="Image ${i + 1}">`),
  ];
  const calls =
    m.role === 'assistant'
      ? (m.tool_calls ?? [])
          .map((c) => `<p>Tool call <code>${escapeHtml(c.function.name)}</code> (${escapeHtml(c.id)})</p><pre>${escapeHtml(c.function.arguments)}</pre>`)
          .join('')
      : '';
  const factsHtml = facts ? `<p class="facts">${escapeHtml(facts)}</p>` : '';
  return `<section class="msg ${m.role}"><h3>${escapeHtml(label)}</h3>${body}${attached.join('')}${calls}${factsHtml}</section>`;
}
