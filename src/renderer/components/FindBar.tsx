/**
 * Find in session (Ctrl+F): the backend finds the matching messages in the whole transcript
 * (most of which is not rendered, the list being virtualised); the bar steps through them
 * with Next and Previous (Enter, Shift+Enter) and tells "n of m". Escape closes it.
 */
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { searchTerms, termPatterns } from '../../shared/search-terms';
import { errorMessage } from '../lib/errors';
import type { ChatSession } from '../state/chat-session';

/** What the transcript shows of a find: every match highlighted, the current one apart and scrolled to. */
export interface FindTarget {
  /** One per term (shared/search-terms.ts), as the backend matched. */
  patterns: RegExp[];
  /** The matching messages' transcript positions. */
  matches: ReadonlySet<number>;
  /** The match gone to last. */
  current: number;
  /** Counts the goings-to, so going to the same match again scrolls to it again. */
  n: number;
}

interface Found {
  query: string;
  matches: number[];
}

interface FindBarProps {
  chat: ChatSession;
  /** The transcript's length: when messages arrive while the bar is open, the find runs again. */
  total: number;
  /** Moves each time Ctrl+F is pressed: the box takes the focus again, its text selected. */
  focusAsked: number;
  onFind: (find: FindTarget | null) => void;
  onClose: () => void;
}

export function FindBar({ chat, total, focusAsked, onFind, onClose }: FindBarProps) {
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Found | null>(null);
  const [at, setAt] = useState(0);
  const [error, setError] = useState<string | null>(null);
  /** Numbers the finds, so that a slow answer to an older query cannot win. */
  const requests = useRef(0);
  const goings = useRef(0);
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    box.current?.focus();
    box.current?.select();
  }, [focusAsked]);

  /** `go`: scroll to the match (a new find, Next, Previous); a refresh only repaints and recounts. */
  const show = ({ query: text, matches }: Found, index: number, go = true) => {
    setAt(index);
    const current = matches[index];
    if (go) goings.current++;
    onFind(current === undefined ? null : { patterns: termPatterns(searchTerms(text)), matches: new Set(matches), current, n: goings.current });
  };
  /** `stayAt`: the message the bar was on, kept as the current match when it still matches (a refresh). */
  const run = (text: string, stayAt?: number) => {
    const request = ++requests.current;
    chat.find(text).then(
      (matches) => {
        if (request !== requests.current) return;
        setFound({ query: text, matches });
        const kept = stayAt === undefined ? -1 : matches.indexOf(stayAt);
        show({ query: text, matches }, Math.max(kept, 0), kept < 0);
      },
      (err: unknown) => request === requests.current && setError(errorMessage(err)),
    );
  };
  const find = (text: string) => {
    setQuery(text);
    setError(null);
    if (searchTerms(text).length === 0) {
      ++requests.current;
      setFound(null);
      onFind(null);
      return;
    }
    run(text);
  };
  // Messages saved while the bar is open (a reply, a tool result) may match too: count them in
  // without moving the view from the match the user is on.
  const seenTotal = useRef(total);
  useEffect(() => {
    if (total === seenTotal.current) return;
    seenTotal.current = total;
    if (found) run(found.query, found.matches[at]);
  });
  const count = found?.matches.length ?? 0;
  const step = (by: number) => {
    if (found && count > 0) show(found, (at + by + count) % count);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    } else if (event.key === 'Enter' && event.target === box.current) {
      event.preventDefault();
      step(event.shiftKey ? -1 : 1);
    }
  };
  const status = error ?? (found === null ? '' : count === 0 ? 'No matches' : `${at + 1} of ${count}`);
  return (
    <div className="find-bar" role="search" aria-label="Find in session" onKeyDown={onKeyDown}>
      <input
        ref={box}
        type="search"
        aria-label="Find in session"
        placeholder='Find in session ("exact phrase")'
        value={query}
        onChange={(event) => find(event.target.value)}
      />
      <span className="find-count" role="status">
        {status}
      </span>
      <button type="button" className="small" onClick={() => step(-1)} disabled={count === 0} aria-label="Previous match" title="Shift+Enter">
        Previous
      </button>
      <button type="button" className="small" onClick={() => step(1)} disabled={count === 0} aria-label="Next match" title="Enter">
        Next
      </button>
      <button type="button" className="small" onClick={onClose} aria-label="Close find" title="Close (Escape)">
        ×
      </button>
    </div>
  );
}
