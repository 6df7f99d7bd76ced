/**
 * System notifications when a turn ends, or waits for an approval or an answer, in a tab
 * the user is not looking at: another tab, or this window not in front. It is the web
 * Notification API, which Electron backs with native notifications, so the desktop shell
 * only lets the permission through. Permission is asked politely and once: on first need,
 * the window offers notifications, and only a click on the offer asks the browser.
 */
import { useEffect, useRef } from 'react';
import type { BridgeEvent } from '../../shared/contract';
import { useBridge } from '../bridge/context';
import { sessionLabel } from '../lib/format';
import { useSessionMetaCache } from './session-meta';

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
