/**
 * Hardening of every Loom window, in one place: the CSP as a response header, every
 * permission request denied but notifications (the renderer's web Notification API,
 * which Electron shows as native notifications), navigation and new windows blocked (http(s) links open in
 * the user's browser instead), no <webview>. Electron objects come in through the small
 * interfaces below so the decisions are testable under Node.
 */
import { CONTENT_SECURITY_POLICY_HEADER } from '../../shared/security-policy';

type Headers = Record<string, string | string[]>;

/** The one permission a Loom window gets: telling the user a turn ended or waits for them. */
const ALLOWED_PERMISSION = 'notifications';

export interface SessionLike {
  webRequest: {
    onHeadersReceived(listener: (details: { responseHeaders?: Headers }, callback: (response: { responseHeaders: Headers }) => void) => void): void;
  };
  setPermissionRequestHandler(handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: (contents: unknown, permission: string) => boolean): void;
}

export interface ContentsLike {
  on(event: 'will-navigate' | 'will-attach-webview' | 'will-redirect', listener: (event: { preventDefault(): void }, ...args: unknown[]) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

export function hardenSession(session: SessionLike): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCsp(details.responseHeaders ?? {}) });
  });
  session.setPermissionRequestHandler((_contents, permission, callback) => callback(permission === ALLOWED_PERMISSION));
  session.setPermissionCheckHandler((_contents, permission) => permission === ALLOWED_PERMISSION);
}

/** Replaces any CSP a response carries with the app's own. */
export function withCsp(headers: Headers): Headers {
  const rest = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-security-policy'));
  return { ...rest, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY_HEADER] };
}

export function hardenContents(contents: ContentsLike, openExternal: (url: string) => void): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isWebLink(url)) openExternal(url);
    return { action: 'deny' };
  });
}

/** Only plain web links leave the app; file:, javascript:, custom schemes never do. */
export function isWebLink(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/** The app's own page: the built index.html, or the dev server while developing. */
export function appUrlMatcher(indexFileUrl: string, devServerUrl: string | undefined): (url: string) => boolean {
  const index = new URL(indexFileUrl);
  const dev = devServerUrl ? new URL(devServerUrl).origin : null;
  return (url) => {
    try {
      const candidate = new URL(url);
      if (dev && candidate.origin === dev) return true;
      return candidate.protocol === 'file:' && candidate.pathname === index.pathname;
    } catch {
      return false;
    }
  };
}
