/**
 * The whole transcript, virtualised: only the rows on screen exist in the page, and the
 * messages behind them are fetched page by page as they scroll into view. Compaction
 * markers sit between the messages where each compaction happened; the last row is the
 * live part of the turn (streamed reply, running tools, approvals, questions). The view
 * follows new content while the user is at the bottom; scrolled up, a pointer leads down to
 * an approval or question waiting there.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { waitingText } from '../state/attention';
import type { CompactionMarker } from '../state/chat-reducer';
import type { ChatSession, ChatSnapshot } from '../state/chat-session';
import { paintMatches } from '../lib/find-highlights';
import type { FindTarget } from './FindBar';
import { LiveRow } from './LiveRow';
import { MessageActions } from './MessageActions';
import { CompactionMarkerRow, type MarkerActions } from './CompactionMarkerRow';
import { MessageRow, PlaceholderRow } from './MessageRow';

type Row = { kind: 'message'; index: number } | { kind: 'marker'; marker: CompactionMarker; n: number } | { kind: 'live' };

/** Maps virtual rows to messages, markers and the live row. */
function rowModel(total: number, markers: CompactionMarker[]) {
  const sorted = markers.map((m, n) => ({ ...m, index: Math.min(m.index, total), n })).sort((a, b) => a.index - b.index || a.n - b.n);
  const placed = sorted.map((marker, k) => ({ marker, position: marker.index + k }));
  const count = total + sorted.length + 1;
  const rowAt = (r: number): Row => {
    if (r === count - 1) return { kind: 'live' };
    let before = 0;
    for (const { marker, position } of placed) {
      if (position === r) return { kind: 'marker', marker, n: marker.n + 1 };
      if (position < r) before++;
    }
    return { kind: 'message', index: r - before };
  };
  return { count, rowAt };
}

const BOTTOM_SLACK_PX = 80;

interface TranscriptProps {
  chat: ChatSession;
  snap: ChatSnapshot;
  /** Open at this message (a sibling branch shown in place, a search hit) instead of at the bottom. */
  scrollToMessage?: number;
  /** Shown highlighted: the message a search hit matched. */
  highlightMessage?: number;
  /** The find bar's matches, highlighted; its current one is scrolled to each time it is gone to. */
  find?: FindTarget | null;
  /** What the compaction markers offer (their kept-and-dropped view, Undo). */
  markerActions: MarkerActions;
}

export function Transcript({ chat, snap, scrollToMessage, highlightMessage, find, markerActions }: TranscriptProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(scrollToMessage === undefined);
  // Rendered from, unlike atBottom: whether to point the user down to a prompt waiting there.
  const [scrolledUp, setScrolledUp] = useState(false);
  const waiting = waitingText(snap) !== null;
  /** The pointer was followed: the prompt gets the focus once its row is drawn and measured. */
  const focusPrompt = useRef(false);
  const model = useMemo(() => rowModel(snap.total, snap.markers), [snap.total, snap.markers]);

  const virtualizer = useVirtualizer({
    count: model.count,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    overscan: 6,
    getItemKey: (r) => {
      const row = model.rowAt(r);
      return row.kind === 'message' ? `m${row.index}` : row.kind === 'marker' ? `c${row.n}` : 'live';
    },
  });
  const items = virtualizer.getVirtualItems();

  // Fetch the transcript pages behind the rows on screen.
  useEffect(() => {
    const indices = items.map((item) => model.rowAt(item.index)).flatMap((row) => (row.kind === 'message' ? [row.index] : []));
    if (indices.length) chat.ensureRange(Math.min(...indices), Math.max(...indices));
  }, [items, model, chat]);

  // Open at the message asked for (a search hit, a find match), and keep it there while the
  // rows around it load and are measured, until the user scrolls. It is scrolled to until its
  // page is in, then once more, then again whenever the rows' measured heights change; while
  // pinned, the list neither follows the bottom nor takes its own scrolling for the user's,
  // until the user scrolls or a new message comes.
  const target = useRef<number | null>(scrollToMessage ?? null);
  /** `total`: the messages there were then; a new one (sent, streamed in) ends the pin. */
  const pinned = useRef<{ row: number; align: 'start' | 'center'; total: number } | null>(null);
  const pin = (row: number, align: 'start' | 'center') => {
    pinned.current = { row, align, total: snap.total };
    virtualizer.scrollToIndex(row, { align });
  };
  const findAt = find?.current;
  const findGoing = find?.n;
  useLayoutEffect(() => {
    if (findAt === undefined) return;
    target.current = findAt;
    atBottom.current = false;
  }, [findAt, findGoing]);
  useLayoutEffect(() => {
    const index = target.current;
    if (index === null || !snap.loaded) return;
    const markersBefore = snap.markers.filter((m) => m.index <= index).length;
    pin(Math.min(index, snap.total - 1) + markersBefore, 'center');
    if (chat.transcript.message(index)) target.current = null;
    else chat.ensureRange(index, index);
  });
  const unpin = () => (pinned.current = null);
  // Home and End go to the very first and last message: the browser's own would scroll by the
  // estimated height, which the rows measured on the way change (landing mid-transcript).
  const onKeyDown = (event: KeyboardEvent) => {
    unpin();
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
    if (scrollsOnItsOwn(event.target, event.currentTarget)) return;
    if (event.key === 'Home') {
      event.preventDefault();
      atBottom.current = false;
      pin(0, 'start');
    } else if (event.key === 'End') {
      event.preventDefault();
      atBottom.current = true;
      virtualizer.scrollToIndex(model.count - 1, { align: 'end' });
    }
  };
  // Follow new content while at the bottom (and open at the bottom)…
  useLayoutEffect(() => {
    const el = scroller.current;
    if (pinned.current && target.current === null && snap.total > pinned.current.total && el) {
      pinned.current = null;
      atBottom.current = nearBottom(el);
    }
    if (snap.loaded && atBottom.current && !pinned.current) virtualizer.scrollToIndex(model.count - 1, { align: 'end' });
  }, [snap.loaded, snap.version, snap.total, model.count, virtualizer]);
  // …also when rows grow after they are measured (rendered Markdown, an opened card).
  const totalSize = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    const el = scroller.current;
    if (pinned.current) virtualizer.scrollToIndex(pinned.current.row, { align: pinned.current.align });
    else if (el && snap.loaded && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [totalSize, snap.loaded, virtualizer]);
  // Every render: the rows on screen change as the list scrolls and pages arrive.
  useEffect(() => paintMatches(scroller.current, find ?? null));
  useEffect(() => () => paintMatches(null, null), []);
  useEffect(() => {
    const prompt = focusPrompt.current && scroller.current?.querySelector<HTMLElement>('.live .card');
    if (!prompt) return;
    focusPrompt.current = false;
    (prompt.querySelector<HTMLElement>('input') ?? prompt).focus({ preventScroll: true });
  });
  const goToPrompt = () => {
    unpin();
    atBottom.current = true;
    focusPrompt.current = true;
    setScrolledUp(false);
    virtualizer.scrollToIndex(model.count - 1, { align: 'end' });
  };

  return (
    <>
      <div
        ref={scroller}
        className="transcript"
        role="log"
        aria-label="Transcript"
        aria-busy={!snap.loaded}
        tabIndex={0}
        onWheel={unpin}
        onPointerDown={unpin}
        onKeyDown={onKeyDown}
        onScroll={(event) => {
          const near = nearBottom(event.currentTarget);
          // Pinned, the scrolling is the list's own (to the message asked for), not the user's.
          if (!pinned.current) atBottom.current = near;
          setScrolledUp(!near);
        }}
      >
        <div className="transcript-inner" style={{ height: totalSize }}>
          {items.map((item) => {
            const row = model.rowAt(item.index);
            const found = row.kind === 'message' && row.index === highlightMessage;
            return (
              <div
                key={item.key}
                data-index={item.index}
                data-message={row.kind === 'message' ? row.index : undefined}
                ref={virtualizer.measureElement}
                className={found ? 'row search-found' : 'row'}
                aria-current={found ? 'true' : undefined}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                {row.kind === 'live' ? (
                  <LiveRow chat={chat} snap={snap} />
                ) : row.kind === 'marker' ? (
                  <CompactionMarkerRow marker={row.marker} n={row.n} actions={markerActions} />
                ) : (
                  <MessageSlot chat={chat} index={row.index} version={snap.version} />
                )}
              </div>
            );
          })}
        </div>
      </div>
      {waiting && scrolledUp && (
        <div className="prompt-pointer">
          <button type="button" className="primary" title={`${waitingText(snap)}: go to it`} onClick={goToPrompt}>
            Waiting for you <span aria-hidden="true">↓</span>
          </button>
        </div>
      )}
    </>
  );
}

function MessageSlot({ chat, index }: { chat: ChatSession; index: number; version: number }) {
  const message = chat.transcript.message(index);
  // The same element while the message is the same, so the memoised row is not drawn again on every streamed word.
  const actions = useMemo(() => (message ? <MessageActions index={index} message={message} /> : null), [index, message]);
  if (!message) return <PlaceholderRow />;
  return (
    <MessageRow
      message={message}
      facts={chat.transcript.facts(index)}
      toolName={message.role === 'tool' ? chat.transcript.toolNameFor(message.tool_call_id, index) : undefined}
    >
      {actions}
    </MessageRow>
  );
}

function nearBottom(el: HTMLElement): boolean {
  return el.scrollHeight - el.scrollTop - el.clientHeight < BOTTOM_SLACK_PX;
}

/** A box inside the transcript that scrolls by itself (an approval's diff, a long command) keeps Home and End for that. */
function scrollsOnItsOwn(target: EventTarget, transcript: Element): boolean {
  for (let el = target instanceof Element ? target : null; el && el !== transcript; el = el.parentElement) {
    if (el.scrollHeight > el.clientHeight && /auto|scroll/.test(getComputedStyle(el).overflowY)) return true;
  }
  return false;
}
