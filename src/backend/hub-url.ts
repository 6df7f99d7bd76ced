/**
 * The hub URL's password in the settings: the dialog shows it as `***` (core/sync's
 * maskPassword) and never gets it back in clear; a `***` sent back stands for the saved password, and only for the same
 * user on the same hub (like an API key, it goes only where it was typed for).
 */
import { HUB_PASSWORD_MASK } from '../shared/settings';
import { LoomError } from '../core/errors';

/** The URL to save for what the dialog sent: a `***` password becomes the saved one when user, host and port are the same. */
export function unmaskHubUrl(sent: string, saved: string | undefined): string {
  const typed = parse(sent);
  if (!typed || typed.password !== HUB_PASSWORD_MASK) return sent;
  const before = saved ? parse(saved) : null;
  if (!before?.password || before.username !== typed.username || before.host !== typed.host) {
    throw new LoomError('Type the hub password: the saved one belongs to another user or hub.', 'bad_input');
  }
  typed.password = before.password;
  return typed.toString();
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}
