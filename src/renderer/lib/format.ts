/** Small display formatters: times, counts, money. */

export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 7) return `${days} d ago`;
  return new Date(iso).toLocaleDateString();
}

export function localTime(iso: string): string {
  return new Date(iso).toLocaleString();
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatCost(usd: number): string {
  return usd === 0 ? '$0.00' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** Estimated tokens in thousands for the context meter: 12.3k. */
export function kiloTokens(n: number): string {
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(1)}k`;
}

/** The name a session goes by: its title, else its listing summary, else its id. */
export function sessionLabel(meta: { id: string; title: string | null; summary: string | null }): string {
  return meta.title || meta.summary || `Session ${meta.id.slice(0, 8)}`;
}

/** "1 file", "3 files". */
export function plural(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}
