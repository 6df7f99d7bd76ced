/**
 * The agent under test, for real: a LoomEngine over a real session store in a temp folder,
 * real tools in a temp project folder, and the real model client talking to the scripted
 * OpenAI-compatible server. The harness answers approvals and questions from queues the
 * test fills, and records every event.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApprovalAnswer } from '../../src/shared/approvals';
import type { EngineEvent } from '../../src/shared/engine-events';
import type { ChatMessage } from '../../src/shared/types';
import { DEFAULTS, type LoomConfig } from '../../src/core/config';
import { LoomEngine } from '../../src/core/engine';
import { SessionStore } from '../../src/core/store/session-store';
import { LISTING_SUMMARY_PROMPT } from '../../src/core/agent/listing-summary';
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from '../support/scripted-server';

export interface AgentHarness {
  server: ScriptedServer;
  store: SessionStore;
  engine: LoomEngine;
  config: LoomConfig;
  projectDir: string;
  dataDir: string;
  sessionId: string;
  events: EngineEvent[];
  /**
   * Answers for the next approval requests (true = allow once, false = deny, or an
   * ApprovalAnswer: 'session' grants what was offered); when empty, an approval is denied and noted.
   */
  approvals: (boolean | ApprovalAnswer)[];
  /** Approval requests that came with no queued answer. */
  unexpectedApprovals: EngineEvent[];
  /** Errors thrown by this harness's event listener, as the engine reported them. */
  listenerErrors: unknown[];
  /** Answers for ask_question. */
  answers: (string | null)[];
  /** Called on each approval request before the queue is consulted (e.g. to stop the turn). */
  onApproval?: (event: Extract<EngineEvent, { type: 'approval' }>) => void;
  send(text: string): Promise<{ error: string | null }>;
  /** The scripted replies for one turn, then a listing-summary reply. */
  script(...replies: ScriptedReply[]): void;
  /** The chat-completion request bodies the server received. */
  bodies(): any[];
  context(): ChatMessage[];
  audit(): { event: string; [key: string]: any }[];
  write(rel: string, content: string): string;
  read(rel: string): string | null;
  ofType<T extends EngineEvent['type']>(type: T): Extract<EngineEvent, { type: T }>[];
  /** Closes the engine and store, reopens both (a new process, as far as the store cares). */
  reopen(overrides?: Partial<LoomConfig>): void;
  cleanup(): Promise<void>;
}

export const SUMMARY_TEXT = 'Working on the test project';

export function isSummaryRequest(body: any): boolean {
  return body.messages?.[0]?.content === LISTING_SUMMARY_PROMPT;
}

export async function makeAgentHarness(overrides: Partial<LoomConfig> = {}): Promise<AgentHarness> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-agent-')));
  const projectDir = path.join(root, 'project');
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(projectDir);
  const server = await startScriptedServer();
  const config: LoomConfig = {
    ...DEFAULTS,
    dataDir,
    baseUrl: server.baseUrl,
    apiKey: '',
    approvePlan: false,
    ...overrides,
  };

  const h = {
    server,
    config,
    projectDir,
    dataDir,
    events: [] as EngineEvent[],
    approvals: [] as (boolean | ApprovalAnswer)[],
    unexpectedApprovals: [] as EngineEvent[],
    listenerErrors: [] as unknown[],
    answers: [] as (string | null)[],
  } as AgentHarness;

  const attach = (cfg: LoomConfig) => {
    h.config = cfg;
    h.store = SessionStore.open(dataDir);
    h.engine = new LoomEngine({ config: cfg, store: h.store, projectDir, onListenerError: (err) => h.listenerErrors.push(err) });
    h.engine.on((event) => {
      h.events.push(event);
      if (event.type === 'approval') {
        h.onApproval?.(event);
        const answer = h.approvals.shift();
        if (answer === undefined) h.unexpectedApprovals.push(event);
        h.engine.answerApproval(event.requestId, answer === true ? 'once' : answer === false || answer === undefined ? 'deny' : answer);
      }
      if (event.type === 'question') h.engine.answerQuestion(event.requestId, h.answers.shift() ?? null);
    });
  };
  attach(config);
  h.sessionId = (await h.engine.createSession()).id;

  // Tests read the requests after a turn: wait for the listing summary sent after it too.
  h.send = async (text) => {
    const outcome = await h.engine.send(h.sessionId, text);
    await h.engine.afterTurnSettled(h.sessionId);
    return outcome;
  };
  h.script = (...replies) => server.enqueue(...replies, { text: SUMMARY_TEXT });
  h.bodies = () => server.requests.map((r) => r.body);
  h.context = () => h.store.getContext(h.sessionId);
  h.audit = () => {
    const file = path.join(dataDir, 'audit', `${h.sessionId}.jsonl`);
    if (!fs.existsSync(file)) return [];
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  };
  h.write = (rel, content) => {
    const abs = path.join(projectDir, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
    return abs;
  };
  h.read = (rel) => {
    const abs = path.join(projectDir, rel);
    return fs.existsSync(abs) ? fs.readFileSync(abs, 'utf8') : null;
  };
  h.ofType = (type) => h.events.filter((e) => e.type === type) as any;
  h.reopen = (more = {}) => {
    h.engine.close();
    h.store.close();
    attach({ ...h.config, ...more });
  };
  h.cleanup = async () => {
    h.engine.close();
    h.store.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  };
  return h;
}

/** The text of the last message of a request body. */
export function lastMessage(body: any): any {
  return body.messages[body.messages.length - 1];
}
