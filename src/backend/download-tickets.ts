/**
 * Single-use download tickets for the browser mode's drag-export (docs/SECURITY.md#download-tickets).
 * A DownloadURL drag hands the browser a URL to fetch by itself, without Loom's headers,
 * so that URL cannot carry the access token. An authenticated call mints a ticket instead:
 * 256 random bits, naming one session's export, good for one fetch within a minute.
 */
import crypto from 'node:crypto';
import type { ExportFormat } from '../shared/contract';

export const TICKET_LIFETIME_MS = 60_000;
/** Tickets kept at once; minting past it drops the oldest (a page cannot grow the map without end). */
const MAX_LIVE_TICKETS = 100;

export interface TicketTarget {
  sessionId: string;
  format: ExportFormat;
}

export class DownloadTickets {
  private readonly live = new Map<string, TicketTarget & { expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  mint(target: TicketTarget): string {
    this.dropExpired();
    if (this.live.size >= MAX_LIVE_TICKETS) this.live.delete(this.live.keys().next().value!);
    const ticket = crypto.randomBytes(32).toString('base64url');
    this.live.set(ticket, { ...target, expiresAt: this.now() + TICKET_LIFETIME_MS });
    return ticket;
  }

  /** The ticket's target, once: a second redeem, an expired or an unknown ticket gives null. */
  redeem(ticket: string): TicketTarget | null {
    const entry = this.live.get(ticket);
    this.live.delete(ticket);
    if (!entry || entry.expiresAt <= this.now()) return null;
    return { sessionId: entry.sessionId, format: entry.format };
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [ticket, entry] of this.live) if (entry.expiresAt <= now) this.live.delete(ticket);
  }
}
