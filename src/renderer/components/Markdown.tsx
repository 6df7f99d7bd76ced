/** Sanitised Markdown (see lib/markdown): the only place model text becomes HTML. */
import { memo, useMemo } from 'react';
import { renderMarkdown } from '../lib/markdown';

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
});
