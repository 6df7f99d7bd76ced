/** A search snippet whose matches the store marked [like this], shown highlighted. */
export function Snippet({ text }: { text: string }) {
  const parts = text.split(/(\[[^\]]*\])/g).filter(Boolean);
  return (
    <span className="snippet">
      {parts.map((part, i) => (part.startsWith('[') && part.endsWith(']') ? <mark key={i}>{part.slice(1, -1)}</mark> : <span key={i}>{part}</span>))}
    </span>
  );
}
