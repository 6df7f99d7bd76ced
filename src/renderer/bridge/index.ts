/**
 * The renderer's one way to the engine: `window.loom` (Electron preload) when present,
 * else the HTTP client of the browser mode, authenticated by the token from the URL
 * Loom printed. The token is moved out of the address bar into sessionStorage, so a
 * reload keeps working and the token does not linger in the visible URL. A new URL pasted
 * into the same tab (the server restarted on the same port) changes only the fragment,
 * which loads nothing: its token is taken and the page starts again with it.
 */
import type { ElectronAPI, LoomBridge } from '../../shared/contract';
import { BridgeError } from './bridge-error';
import { createHttpBridge } from './http-client';

declare global {
  interface Window {
    loom?: ElectronAPI;
  }
}

const TOKEN_KEY = 'loom.token';

export function connectBridge(): LoomBridge | null {
  if (window.loom) return fromElectron(window.loom);
  const token = takeTokenFromUrl() ?? sessionStorage.getItem(TOKEN_KEY);
  window.addEventListener('hashchange', () => {
    const pasted = takeTokenFromUrl();
    if (pasted && pasted !== token) window.location.reload();
  });
  return token ? createHttpBridge(token) : null;
}

export function isDesktop(): boolean {
  return window.loom !== undefined;
}

function fromElectron(api: ElectronAPI): LoomBridge {
  return {
    async invoke(method, input) {
      const result = await api.invoke(method, input);
      if (!result.ok) throw new BridgeError(result.error.code, result.error.message);
      return result.value;
    },
    onEvent: (listener) => api.onEvent(listener),
    // IPC events are not dropped while the page lives; a reload starts the page afresh.
    onReconnect: () => () => {},
    // The main process never refuses its own window.
    onAccessLost: () => () => {},
  };
}

function takeTokenFromUrl(): string | null {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const token = params.get('token');
  if (!token) return null;
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, '', window.location.pathname + window.location.search);
  return token;
}

/** Browser mode only: the URL a DownloadURL drag hands to the browser to fetch the export. */
export function downloadUrl(sessionId: string): string | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (window.loom || !token) return null;
  return `${window.location.origin}/api/download/${encodeURIComponent(sessionId)}?token=${encodeURIComponent(token)}`;
}
