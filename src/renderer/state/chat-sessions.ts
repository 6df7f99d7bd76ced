/**
 * The window's chat controllers, one per open session: made (and loaded) on first use,
 * each fed the engine's events, reloaded after a dropped event stream, dropped when the
 * session's tab closes.
 */
import type { LoomBridge } from '../../shared/contract';
import { ChatSession } from './chat-session';
import type { SessionMetaCache } from './session-meta-cache';

export class ChatSessions {
  private chats = new Map<string, ChatSession>();

  constructor(
    private readonly bridge: LoomBridge,
    private readonly sessions: SessionMetaCache,
  ) {}

  /** Routes the engine's events to the controllers; returns the unsubscribe. */
  connect(): () => void {
    const offEvents = this.bridge.onEvent((event) => this.chats.forEach((chat) => chat.handle(event)));
    // Back after a dropped event stream: each open chat catches up (prompts announced meanwhile too).
    const offReconnect = this.bridge.onReconnect(() => this.chats.forEach((chat) => void chat.load()));
    return () => {
      offEvents();
      offReconnect();
    };
  }

  /** The session's controller, made and loading if it is new. */
  get(id: string): ChatSession {
    return this.chats.get(id) ?? this.start(id).chat;
  }

  /** The session's controller once its first load has finished (a new branch shown with its whole turn). */
  async loaded(id: string): Promise<ChatSession> {
    const known = this.chats.get(id);
    if (known) return known;
    const { chat, loading } = this.start(id);
    await loading;
    return chat;
  }

  peek(id: string): ChatSession | undefined {
    return this.chats.get(id);
  }

  drop(id: string): void {
    this.chats.delete(id);
  }

  private start(id: string): { chat: ChatSession; loading: Promise<void> } {
    const chat = new ChatSession(id, this.bridge, this.sessions);
    this.chats.set(id, chat);
    return { chat, loading: chat.load() };
  }
}
