/**
 * The hub URL's password in the settings: the dialog shows it as `***` (core/sync's
 * maskPassword) and never gets it back in clear; a `***` sent back stands for the saved password, and only for the same
 * user on the same server, reached the same way (like an API key, it goes only where it was typed for).
 */
import { HUB_PASSWORD_MASK } from '../shared/settings';
import { LoomError } from '../core/errors';

const DEFAULT_PORT = '5432';

/**
 * The URL to save for what the dialog sent: a `***` password becomes the saved one only when
 * the connection would really go to the same place as the saved URL's, as the same user —
 * the same host, port, and `?host=` (which overrides the host: another machine or a Unix
 * socket), trusted the same way (sslmode, sslrootcert). Another database on that server
 * keeps the password; any parameter that redirects the connection needs it typed again.
 */
export function unmaskHubUrl(sent: string, saved: string | undefined): string {
  const typed = parse(sent);
  if (!typed || typed.password !== HUB_PASSWORD_MASK) return sent;
  const before = saved ? parse(saved) : null;
  if (!before?.password || endpoint(before) !== endpoint(typed)) {
    throw new LoomError('Type the hub password: the saved one belongs to another user or hub.', 'bad_input');
  }
  typed.password = before.password;
  return typed.toString();
}

/** Where a hub URL connects, and as whom: every part that decides which server gets the password. */
function endpoint(url: URL): string {
  const param = (name: string) => url.searchParams.getAll(name);
  return JSON.stringify([
    decodeURIComponent(url.username),
    url.hostname.toLowerCase(),
    url.port || DEFAULT_PORT,
    param('host'),
    param('sslmode'),
    param('sslrootcert'),
  ]);
}

function parse(url: string): URL | null {
  try {
    return new URL(url.trim());
  } catch {
    return null;
  }
}
