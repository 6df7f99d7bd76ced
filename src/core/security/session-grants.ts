/**
 * The "allow for this session" grants of one open session (docs/DESIGN.md#permissions-and-security):
 * every call of a tool, or a run_bash command prefix. They live in the engine while the
 * session is open and are never stored. They only spare the user the default-mode ask:
 * the hard policy and the always-ask cases are judged before them (permissions.ts).
 */
import { randomUUID } from 'node:crypto';
import type { GrantOffer, SessionGrant } from '../../shared/approvals';
import { startsWithPrefix } from './shell-prefix';

export class SessionGrants {
  private grants: SessionGrant[] = [];

  list(): SessionGrant[] {
    return this.grants.map((grant) => ({ ...grant }));
  }

  /** Grants the offer, or returns the same grant already there. */
  add(offer: GrantOffer): SessionGrant {
    const existing = this.grants.find((grant) => sameGrant(grant, offer));
    if (existing) return { ...existing };
    const grant: SessionGrant = offer.kind === 'tool' ? { ...offer, id: randomUUID() } : { ...offer, prefix: [...offer.prefix], id: randomUUID() };
    this.grants.push(grant);
    return { ...grant };
  }

  /** Removes the grant; null when there is none with that id. */
  revoke(id: string): SessionGrant | null {
    const grant = this.grants.find((g) => g.id === id);
    if (!grant) return null;
    this.grants = this.grants.filter((g) => g !== grant);
    return grant;
  }

  /**
   * The grant that covers a call of `tool`: a tool grant, or, for a command (`words`: the
   * words of a plain simple command, null for any other line), a prefix grant it starts with.
   */
  covering(tool: string, words: readonly string[] | null): SessionGrant | null {
    const found = this.grants.find((grant) => {
      if (grant.tool !== tool) return false;
      return grant.kind === 'tool' || (words !== null && startsWithPrefix(words, grant.prefix));
    });
    return found ? { ...found } : null;
  }
}

function sameGrant(a: GrantOffer, b: GrantOffer): boolean {
  if (a.kind === 'tool' || b.kind === 'tool') return a.kind === b.kind && a.tool === b.tool;
  return a.tool === b.tool && a.prefix.join('\0') === b.prefix.join('\0');
}
