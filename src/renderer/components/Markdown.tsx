/**
 * A reply as Markdown, built as React elements from marked's tokens (shared/markdown): the
 * only place model text becomes markup. Raw HTML is shown as text; links open outside the
 * app and only for http(s) and mailto; images are drawn only from data URLs in the reply,
 * a remote image becomes a link to it; code is highlighted through a span tree (shared/highlight),
 * under a header naming its language, with a button that copies it.
 */
import { Fragment, createElement, memo, useMemo, type ReactNode } from 'react';
import type { MarkedToken, Token, Tokens } from 'marked';
import { decodeCharacterReferences } from '../../shared/character-references';
import { highlightCode, type Highlighted } from '../../shared/highlight';
import { inlineImageSrc, lexMarkdown, safeLinkHref } from '../../shared/markdown';
import { CopyButton } from './CopyButton';

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => renderBlocks(lexMarkdown(text)), [text]);
  return <div className="markdown">{blocks}</div>;
});

function renderBlocks(tokens: Token[]): ReactNode[] {
  return tokens.map((token, key) => renderBlock(token as MarkedToken, key));
}

function renderBlock(token: MarkedToken, key: number): ReactNode {
  switch (token.type) {
    case 'space':
    case 'def':
      return null;
    case 'paragraph':
      return <p key={key}>{renderInline(token.tokens)}</p>;
    case 'heading':
      return createElement(`h${token.depth}`, { key }, renderInline(token.tokens));
    case 'code':
      return renderCode(token, key);
    case 'blockquote':
      return <blockquote key={key}>{renderBlocks(token.tokens)}</blockquote>;
    case 'list':
      return renderList(token, key);
    case 'table':
      return renderTable(token, key);
    case 'hr':
      return <hr key={key} />;
    case 'html':
      return (
        <p key={key} className="raw-html">
          {token.text.trimEnd()}
        </p>
      );
    case 'text':
      return token.tokens ? <Fragment key={key}>{renderInline(token.tokens)}</Fragment> : decodeCharacterReferences(token.text);
    default:
      return renderInlineToken(token, key, false);
  }
}

function renderList(list: Tokens.List, key: number): ReactNode {
  const items = list.items.map((item, index) => <li key={index}>{renderBlocks(item.tokens)}</li>);
  if (!list.ordered) return <ul key={key}>{items}</ul>;
  return (
    <ol key={key} start={list.start === '' || list.start === 1 ? undefined : list.start}>
      {items}
    </ol>
  );
}

function renderTable(table: Tokens.Table, key: number): ReactNode {
  const cell = (c: Tokens.TableCell, index: number) =>
    createElement(c.header ? 'th' : 'td', { key: index, align: c.align ?? undefined }, renderInline(c.tokens));
  return (
    <table key={key}>
      <thead>
        <tr>{table.header.map(cell)}</tr>
      </thead>
      {table.rows.length > 0 && (
        <tbody>
          {table.rows.map((row, index) => (
            <tr key={index}>{row.map(cell)}</tr>
          ))}
        </tbody>
      )}
    </table>
  );
}

/** Inline tokens; inside a link no further links are made (nested anchors are invalid). */
function renderInline(tokens: Token[], inLink = false): ReactNode[] {
  return tokens.map((token, key) => renderInlineToken(token as MarkedToken, key, inLink));
}

function renderInlineToken(token: MarkedToken, key: number, inLink: boolean): ReactNode {
  switch (token.type) {
    case 'text':
      return token.tokens ? renderInline(token.tokens, inLink) : decodeCharacterReferences(token.text);
    case 'escape':
      return token.text;
    case 'strong':
      return <strong key={key}>{renderInline(token.tokens, inLink)}</strong>;
    case 'em':
      return <em key={key}>{renderInline(token.tokens, inLink)}</em>;
    case 'del':
      return <del key={key}>{renderInline(token.tokens, inLink)}</del>;
    case 'codespan':
      return <code key={key}>{token.text}</code>;
    case 'br':
      return <br key={key} />;
    case 'link':
      return renderLink(token, key, inLink);
    case 'image':
      return renderImage(token, key, inLink);
    case 'checkbox':
      return (
        <span key={key} className="task" role="img" aria-label={token.checked ? 'done' : 'not done'}>
          {token.checked ? '☑ ' : '☐ '}
        </span>
      );
    case 'html':
      // Raw HTML from the model is shown as the text it is.
      return token.text;
    default:
      return token.raw;
  }
}

function renderLink(link: Tokens.Link, key: number, inLink: boolean): ReactNode {
  const children = renderInline(link.tokens, true);
  const href = inLink ? null : safeLinkHref(link.href);
  if (!href) return <span key={key}>{children}</span>;
  return (
    <ExternalLink key={key} href={href} title={link.title}>
      {children}
    </ExternalLink>
  );
}

const IMAGE_MARK = '🖼 ';

function renderImage(image: Tokens.Image, key: number, inLink: boolean): ReactNode {
  const alt = decodeCharacterReferences(image.text);
  const title = image.title ? decodeCharacterReferences(image.title) : undefined;
  const src = inlineImageSrc(image.href);
  if (src) return <img key={key} src={src} alt={alt} title={title} />;
  const label = IMAGE_MARK + (alt || decodeCharacterReferences(image.href));
  const href = inLink ? null : safeLinkHref(image.href);
  if (!href) return <span key={key}>{label}</span>;
  return (
    <ExternalLink key={key} href={href} title={image.title}>
      {label}
    </ExternalLink>
  );
}

function ExternalLink({ href, title, children }: { href: string; title?: string | null; children: ReactNode }) {
  return (
    <a href={href} title={title ? decodeCharacterReferences(title) : undefined} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

function renderCode(code: Tokens.Code, key: number): ReactNode {
  const { language, nodes } = highlightCode(code.text, code.lang);
  return (
    <div key={key} className="code-block">
      <div className="code-head">
        {language && <span className="code-lang">{language}</span>}
        <CopyButton label="Copy" name={language ? `Copy ${language} code` : 'Copy code'} text={() => code.text} />
      </div>
      <pre className="code" data-lang={language ?? undefined}>
        <code className="hljs">{renderHighlighted(nodes)}</code>
      </pre>
    </div>
  );
}

function renderHighlighted(nodes: Highlighted[]): ReactNode[] {
  return nodes.map((node, key) =>
    typeof node === 'string' ? (
      node
    ) : (
      <span key={key} className={node.className}>
        {renderHighlighted(node.children)}
      </span>
    ),
  );
}
