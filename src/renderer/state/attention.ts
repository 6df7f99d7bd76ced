/**
 * What each open session asks of the user, where the user will see it: a marker (a sign and
 * words, not a colour alone) for its tab, its sidebar row and the tab strip's overflow
 * control, the chat's status line; and system notifications when a turn ends, or waits for
 * an approval or an answer, in a tab the user is not looking at: another tab, or this
 * window not in front. It is the web Notification API, which Electron backs with native
 * notifications, so the desktop shell only lets the permission through. Permission is asked
 * politely and once: on first need, the window offers notifications, and only a click on
 * the offer asks the browser.
 */
import { useCallback, useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import type { BridgeEvent } from '../../shared/contract';
import { useBridge } from '../bridge/context';
import { sessionLabel } from '../lib/format';
import { isBusy, type ChatState } from './chat-reducer';
import type { ChatSession } from './chat-session';
import { useSessionMetaCache } from './session-meta';

export type AttentionKind = 'approval' | 'question' | 'busy';

export interface AttentionMarker {
  kind: AttentionKind;
  /** Shown, hidden from screen readers. */
  sign: string;
  /** Read by screen readers after the name: "Heron notes (needs your approval)". */
  text: string;
}

const MARKERS: Record<AttentionKind, AttentionMarker> = {
  approval: { kind: 'approval', sign: '!', text: 'needs your approval' },
  question: { kind: 'question', sign: '?', text: 'asks you a question' },
  busy: { kind: 'busy', sign: '…', text: 'working' },
};

/** A session's marker: waiting for the user comes before merely working; null when idle. */
export function attentionMarker(state: Pick<ChatState, 'approvals' | 'questions' | 'phase'>): AttentionMarker | null {
  if (state.approvals.length > 0) return MARKERS.approval;
  if (state.questions.length > 0) return MARKERS.question;
  return isBusy(state.phase) ? MARKERS.busy : null;
}

/** What the chat's status line says while the engine waits on the user (in place of "Running write_file…"). */
export function waitingText(state: Pick<ChatState, 'approvals' | 'questions'>): string | null {
  if (state.approvals.length > 0) return 'Waiting for your approval';
  if (state.questions.length > 0) return 'Waiting for your answer';
  return null;
}

/**
 * The marker of the tabs scrolled out of the strip, for its overflow control: only what
 * waits for the user (an approval before a question); work in progress does not call.
 */
export function hiddenAttention(markers: readonly (AttentionMarker | null | undefined)[]): AttentionMarker | null {
  if (markers.some((m) => m?.kind === 'approval')) return MARKERS.approval;
  if (markers.some((m) => m?.kind === 'question')) return MARKERS.question;
  return null;
}

/** A folded family's marker in the sidebar: whatever of its members' asks most (an approval, a question, work). */
export function familyAttention(markers: readonly (AttentionMarker | null | undefined)[]): AttentionMarker | null {
  return hiddenAttention(markers) ?? (markers.some((m) => m?.kind === 'busy') ? MARKERS.busy : null);
}

/** Each open session's marker (made and loaded if new), kept current; sessions with none are absent. */
export function useAttentionMarkers(ids: readonly string[], chatFor: (id: string) => ChatSession): ReadonlyMap<string, AttentionMarker> {
  const subscribe = useCallback(
    (listener: () => void) => {
      const unsubscribes = ids.map((id) => chatFor(id).subscribe(listener));
      return () => unsubscribes.forEach((unsubscribe) => unsubscribe());
    },
    [ids, chatFor],
  );
  // A string, so that a change that leaves every marker as it was renders nothing.
  const kinds = useSyncExternalStore(subscribe, () => ids.map((id) => attentionMarker(chatFor(id).getSnapshot())?.kind ?? '').join(' '));
  return useMemo(() => {
    const list = kinds.split(' ');
    return new Map(ids.flatMap((id, n) => (list[n] ? [[id, MARKERS[list[n] as AttentionKind]] as const] : [])));
  }, [ids, kinds]);
}

const ASKED_KEY = 'loom.notifications.asked';

interface AttentionOptions {
  openTabs: string[];
  activeTab: string | null;
  /** Brings the session's tab to the front (the notification was clicked). */
  onShow: (id: string) => void;
  /** Notifications are wanted but never offered yet: show the offer. */
  onOffer: () => void;
}

export function useAttentionNotifications(options: AttentionOptions): void {
  const bridge = useBridge();
  const sessions = useSessionMetaCache();
  const current = useRef(options);
  useEffect(() => {
    current.current = options;
  });
  useEffect(
    () =>
      bridge.onEvent((event) => {
        const body = attentionText(event);
        if (!body || !('sessionId' in event)) return;
        const { openTabs, activeTab, onShow, onOffer } = current.current;
        const id = event.sessionId;
        if (!openTabs.includes(id) || (id === activeTab && windowInFront())) return;
        if (typeof Notification === 'undefined') return;
        if (Notification.permission === 'granted') {
          const meta = sessions.meta(id);
          const notification = new Notification(`Loom: ${meta ? sessionLabel(meta) : 'a session'}`, { body, tag: id });
          notification.onclick = () => {
            window.focus();
            onShow(id);
            notification.close();
          };
        } else if (Notification.permission === 'default' && !offered()) onOffer();
      }),
    [bridge, sessions],
  );
}

/** The user answered the offer: never offered again; `allow` asks the browser (from the click, as browsers require). */
export function answerNotificationOffer(allow: boolean): void {
  try {
    localStorage.setItem(ASKED_KEY, allow ? 'allowed' : 'declined');
  } catch {
    // Storage unavailable: the offer may come again after a reload, nothing worse.
  }
  if (allow && typeof Notification !== 'undefined') void Notification.requestPermission();
}

function offered(): boolean {
  try {
    return localStorage.getItem(ASKED_KEY) !== null;
  } catch {
    return true; // cannot remember an answer: do not keep asking
  }
}

function windowInFront(): boolean {
  return document.visibilityState === 'visible' && document.hasFocus();
}

/** What a notification says about the event, or null when it needs none. */
function attentionText(event: BridgeEvent): string | null {
  switch (event.type) {
    case 'turn':
      if (event.phase !== 'end') return null;
      return event.error ? `The turn failed: ${event.error}` : 'The reply is ready.';
    case 'approval':
      return `Waits for your approval to run ${event.tool}.`;
    case 'question':
      return 'Has a question for you.';
    default:
      return null;
  }
}
