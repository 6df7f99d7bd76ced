/**
 * Non-blocking banners at the top of the window (errors, and notes such as an import's),
 * each dismissible; and the chat's one
 * banner about its model server, which a retry updates and the failure then takes over.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ModelFailure, ModelRetry } from '../../shared/model-failure';
import { retryLine, windowAdvice } from '../lib/model-advice';

export interface Banner {
  id: number;
  text: string;
  /** An error (the default), or something done that the user should know of (an import's note). */
  level: 'error' | 'info';
}

export function useBanners() {
  const [list, setList] = useState<Banner[]>([]);
  const next = useRef(0);
  const add = useCallback((text: string, level: Banner['level']) => {
    setList((current) => [...current.filter((b) => b.text !== text).slice(-3), { id: ++next.current, text, level }]);
  }, []);
  const show = useCallback((text: string) => add(text, 'error'), [add]);
  const note = useCallback((text: string) => add(text, 'info'), [add]);
  const dismiss = useCallback((id: number) => setList((current) => current.filter((b) => b.id !== id)), []);
  return useMemo(() => ({ list, show, note, dismiss }), [list, show, note, dismiss]);
}

export function Banners({ banners, onDismiss }: { banners: Banner[]; onDismiss: (id: number) => void }) {
  if (banners.length === 0) return null;
  return (
    <div className="banners">
      {banners.map((banner) => (
        <ErrorBanner key={banner.id} text={banner.text} level={banner.level} onDismiss={() => onDismiss(banner.id)} />
      ))}
    </div>
  );
}

export function ErrorBanner({ text, onDismiss, level = 'error' }: { text: string; onDismiss: () => void; level?: 'error' | 'warning' | 'info' }) {
  return (
    <div className={`banner banner-${level}`} role={level === 'info' ? 'status' : 'alert'}>
      <span className="banner-text">{text}</span>
      <button type="button" className="icon" aria-label="Dismiss message" onClick={onDismiss}>
        ×
      </button>
    </div>
  );
}

interface TurnProblemProps {
  /** The turn's failure in the engine's one line, shown as it is when it was not a model request's. */
  error: string | null;
  failure: ModelFailure | null;
  retry: ModelRetry | null;
  onDismiss: () => void;
  onOpenSettings: () => void;
}

/**
 * What went wrong with the turn, in one banner: while the model request is retried, the
 * attempt that failed and a countdown to the next; once the retries are spent, the failure
 * with the window's advice (and a button to Settings when the fix is there).
 */
export function TurnProblemBanner({ error, failure, retry, onDismiss, onOpenSettings }: TurnProblemProps) {
  const secondsLeft = useCountdown(retry);
  if (failure) {
    const advice = windowAdvice(failure);
    return (
      <div className="banner banner-error turn-problem" role="alert">
        <span className="banner-text">{advice.line}</span>
        {advice.inSettings && (
          <button type="button" onClick={onOpenSettings}>
            Open Settings
          </button>
        )}
        <button type="button" className="icon" aria-label="Dismiss message" onClick={onDismiss}>
          ×
        </button>
      </div>
    );
  }
  if (error) return <ErrorBanner text={error} onDismiss={onDismiss} />;
  if (!retry) return null;
  return (
    <div className="banner banner-info turn-problem" role="status">
      <span className="banner-text">{retryLine(retry, secondsLeft)}</span>
    </div>
  );
}

/** Whole seconds until the retry's next try, counting down from when it was announced. */
function useCountdown(retry: ModelRetry | null): number {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (!retry) return;
    const due = Date.now() + retry.delayMs;
    const tick = () => setLeft(Math.max(0, Math.ceil((due - Date.now()) / 1000)));
    tick();
    const timer = setInterval(tick, 250);
    return () => clearInterval(timer);
  }, [retry]);
  return left;
}
