/**
 * The HTML export: one self-contained page that reads like the app's transcript. Replies
 * are Markdown rendered by markdown-html.ts (the window's parser, link rules and
 * highlighting), everything else is escaped text; the page runs no script and loads
 * nothing (its CSP allows its own stylesheet, by hash, and data: images, nothing else).
 * The stylesheet is the app's: its palette, light or dark as the system prefers, and its
 * rules for Markdown and code (test/store/export-html.test.ts holds them to styles.css).
 */
import { createHash } from 'node:crypto';
import { userParts } from '../../shared/fences';
import type { ChatMessage, SessionRecord } from '../../shared/types';
import { ROLE_LABELS, changeLists, compactionHeading, detailLines, displayTitle, factsLine, shownContent } from './export-lines';
import { escapeHtml, markdownHtml } from './markdown-html';

export const HTML_STYLE = `
:root {
  color-scheme: light dark;
  --bg: light-dark(#ffffff, #16181d);
  --bg-soft: light-dark(#f5f6f8, #1e2128);
  --fg: light-dark(#1d2127, #e4e7ec);
  --fg-soft: light-dark(#5b6470, #9aa3b0);
  --border: light-dark(#d7dbe1, #343945);
  --accent: light-dark(#3b5bdb, #748ffc);
  --user-bg: light-dark(#edf2ff, #232a3d);
  --code-bg: light-dark(#f6f8fa, #0f1116);
  --hl-keyword: light-dark(#cf222e, #ff7b72);
  --hl-string: light-dark(#0a3069, #a5d6ff);
  --hl-number: light-dark(#0550ae, #79c0ff);
  --hl-comment: light-dark(#57606a, #8b949e);
  --hl-title: light-dark(#8250df, #d2a8ff);
  --hl-attr: light-dark(#953800, #ffa657);
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; }
main { max-width: 920px; margin: 0 auto; padding: 24px 16px; }
h1 { font-size: 1.5rem; margin: 0 0 8px; }
a { color: var(--accent); }
code, pre { font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
img { max-width: 100%; max-height: 24rem; display: block; margin: 8px 0; }
.details { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; color: var(--fg-soft); font-size: 13px; }
.details dt { font-weight: 600; }
.details dd { margin: 0; overflow-wrap: anywhere; }
.msg { margin: 8px 0; padding: 8px 12px; border-radius: 10px; }
.msg > h3 { margin: 0 0 2px; font-size: 12px; font-weight: 600; color: var(--fg-soft); }
.msg-user { background: var(--user-bg); }
.msg-tool { border: 1px solid var(--border); background: var(--bg-soft); }
.msg-system { color: var(--fg-soft); font-size: 12px; padding: 2px 12px; }
.msg-system > summary { cursor: pointer; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.facts { margin: 4px 0 0; font-size: 12px; color: var(--fg-soft); }
.markdown { overflow-wrap: anywhere; }
.markdown > :first-child { margin-top: 0; }
.markdown > :last-child { margin-bottom: 0; }
.markdown pre.code { background: var(--code-bg); border: 1px solid var(--border); border-radius: 6px; padding: 8px 10px; overflow-x: auto; white-space: pre; }
.code-block { margin: 1em 0; }
.code-block pre.code { margin: 0; }
.code-head { display: flex; align-items: center; justify-content: space-between; gap: 8px; min-height: 30px; padding: 2px 6px 2px 10px; border: 1px solid var(--border); border-bottom: 0; border-radius: 6px 6px 0 0; background: var(--bg-soft); }
.code-head + pre.code { border-radius: 0 0 6px 6px; }
.code-lang { font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; font-size: 12px; color: var(--fg-soft); }
.markdown :not(pre) > code { background: var(--code-bg); border-radius: 4px; padding: 1px 4px; }
.markdown blockquote { margin: 8px 0; padding: 0 12px; border-left: 4px solid var(--border); color: var(--fg-soft); }
.markdown table { border-collapse: collapse; }
.markdown th, .markdown td { border: 1px solid var(--border); padding: 3px 8px; }
.markdown .raw-html { white-space: pre-wrap; }
.hljs { color: var(--fg); background: transparent; }
.hljs-keyword, .hljs-selector-tag, .hljs-literal, .hljs-built_in, .hljs-type { color: var(--hl-keyword); }
.hljs-string, .hljs-regexp, .hljs-addition, .hljs-template-string { color: var(--hl-string); }
.hljs-number, .hljs-symbol, .hljs-variable, .hljs-meta { color: var(--hl-number); }
.hljs-comment, .hljs-quote, .hljs-deletion { color: var(--hl-comment); font-style: italic; }
.hljs-title, .hljs-section, .hljs-function .hljs-title { color: var(--hl-title); }
.hljs-attr, .hljs-attribute, .hljs-property, .hljs-params { color: var(--hl-attr); }
`;

/** Nothing but this stylesheet and data: images: no script, no request, no form, no base. */
const CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(HTML_STYLE).digest('base64')}'; img-src data:; base-uri 'none'; form-action 'none'`;

export function renderHtml(s: SessionRecord): string {
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
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(displayTitle(s))}</title>
<style>${HTML_STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(displayTitle(s))}</h1>
${s.title && s.summary ? `<p>${escapeHtml(s.summary)}</p>` : ''}
<dl class="details">${details}</dl>
<h2>Transcript</h2>
${messages}
${modelChanges}
${compactions}
${plan}
</main>
</body>
</html>
`;
}

function htmlMessage(m: ChatMessage, facts: string): string {
  const content = shownContent(m);
  // The system prompt is long and the same in every session: folded, as in the window.
  if (m.role === 'system')
    return `<details class="msg msg-system"><summary>${ROLE_LABELS.system} prompt</summary><pre>${escapeHtml(content ?? '')}</pre></details>`;
  const label = m.role === 'tool' ? `${ROLE_LABELS.tool} (${m.tool_call_id})` : ROLE_LABELS[m.role];
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
  return `<section class="msg msg-${m.role}"><h3>${escapeHtml(label)}</h3>${messageBody(m, content)}${attached.join('')}${calls}${factsHtml}</section>`;
}

/** A reply is Markdown, as the window renders it; the user's words and tool output are shown as they are. */
function messageBody(m: ChatMessage, content: string | null): string {
  if (m.role === 'tool') return `<pre>${escapeHtml(content ?? '')}</pre>`;
  if (!content) return '';
  return m.role === 'assistant' ? markdownHtml(content) : `<div class="text">${escapeHtml(content)}</div>`;
}
