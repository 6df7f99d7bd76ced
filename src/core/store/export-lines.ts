/**
 * What the two readable exports (Markdown in export.ts, HTML in export-html.ts) both say
 * about a session and its messages, so they cannot tell a reader different things.
 */
import { toolText, userParts } from '../../shared/fences';
import type { AgentChange, ChatMessage, Compaction, MessageFacts, ModelChange, SessionRecord } from '../../shared/types';

export function displayTitle(s: SessionRecord): string {
  return s.title || s.summary || 'Untitled session';
}

export const ROLE_LABELS: Record<ChatMessage['role'], string> = {
  system: 'System',
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool result',
};

export function detailLines(s: SessionRecord): [string, string][] {
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
export function factsLine(facts: MessageFacts | null | undefined): string {
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
export function changeLists(s: SessionRecord): [string, string[]][] {
  const lists: [string, string[]][] = [
    ['Model changes', s.model_changes.map(modelChangeLine)],
    ['Agent changes', s.agent_changes.map(agentChangeLine)],
  ];
  return lists.filter(([, lines]) => lines.length > 0);
}

/** When a compaction happened and what it saved, as Markdown and HTML both show it. */
export function compactionHeading(c: Compaction): string {
  return `${c.at}: ${c.before_tokens} → ${c.after_tokens} tokens`;
}

/**
 * What a reader sees of a message: the user's words and tool output without the fences Loom
 * keeps around them for the model (the JSON export keeps them: it is what the model saw).
 */
export function shownContent(m: ChatMessage): string | null {
  if (m.role === 'user') return userParts(m.content).text;
  if (m.role === 'tool') return toolText(m.content);
  return m.content;
}
