/** Non-blocking error banners at the top of the window, each dismissible. */
import { useCallback, useMemo, useRef, useState } from 'react';

export interface Banner {
  id: number;
  text: string;
}

export function useBanners() {
  const [list, setList] = useState<Banner[]>([]);
  const next = useRef(0);
  const show = useCallback((text: string) => {
    setList((current) => [...current.filter((b) => b.text !== text).slice(-3), { id: ++next.current, text }]);
  }, []);
  const dismiss = useCallback((id: number) => setList((current) => current.filter((b) => b.id !== id)), []);
  return useMemo(() => ({ list, show, dismiss }), [list, show, dismiss]);
}

export function Banners({ banners, onDismiss }: { banners: Banner[]; onDismiss: (id: number) => void }) {
  if (banners.length === 0) return null;
  return (
    <div className="banners">
      {banners.map((banner) => (
        <ErrorBanner key={banner.id} text={banner.text} onDismiss={() => onDismiss(banner.id)} />
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
