/**
 * Model requests on behalf of a session: audited before and after, and (for the calls the
 * loop makes itself) their usage recorded in the store under their kind, so that
 * --max-cost-usd and \info see it at once, with the server's prompt_tokens fed back into
 * the context budget.
 */
import type { ModelRetry } from '../../shared/model-failure';
import type { CallKind, CallUsage } from '../../shared/types';
import type { SummaryClient } from '../context/compactor';
import { errorMessage } from '../errors';
import type { ChatRequest, ChatResult, RetryNotice } from '../model/client';
import { ModelError } from '../model/model-error';
import { chargedUsage } from '../model/pricing';
import type { AgentSession } from './session';

/** The session's client with every call audited; usage is left to the caller. */
export function auditedClient(session: AgentSession, kind: CallKind): SummaryClient {
  const { client, audit } = session;
  return {
    settings: client.settings,
    async chat(request: ChatRequest): Promise<ChatResult> {
      audit.write('llm_request', {
        kind,
        model: client.settings.model,
        messages: request.messages.length,
        tools: request.tools?.length ?? 0,
      });
      try {
        const result = await client.chat(request);
        audit.write('llm_response', {
          kind,
          finish_reason: result.finishReason,
          tool_calls: result.message.tool_calls?.length ?? 0,
          text_chars: result.message.content?.length ?? 0,
          usage: result.usage,
        });
        return result;
      } catch (err) {
        const errorKind = err instanceof ModelError ? err.kind : 'unexpected';
        audit.write('llm_call_error', { kind, error: errorMessage(err), error_kind: errorKind });
        throw err;
      }
    },
  };
}

/** A chat or summary request whose usage is charged to the session; the answer says what was charged. */
export async function callModel(session: AgentSession, kind: CallKind, request: ChatRequest): Promise<ChatResult & { charged: CallUsage }> {
  const { settings } = session.client;
  const result = await auditedClient(session, kind).chat(request);
  const charged = chargedUsage(settings, result.usage);
  session.store.recordUsage(session.id, kind, charged);
  if (kind === 'chat' && !result.usage.estimated) {
    session.budget.recordServerPromptTokens(result.usage.prompt_tokens, request.messages.length);
  }
  session.emitUsage();
  return { ...result, charged };
}

/** True when the error is the user's stop, not a failure. */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return (err instanceof ModelError && err.kind === 'aborted') || signal?.aborted === true;
}

/**
 * What the user reads while a failed request waits for its next try: the failure without
 * its advice (that is for when the retries are used up) and when the next try comes; the
 * same as data (`retry`) for a window, which keeps one line and updates it.
 */
export function retryNotice(notice: RetryNotice): { text: string; retry: ModelRetry } {
  const { attempt, maxRetries, delayMs } = notice;
  const problem = notice.error.problem;
  return {
    text: `${problem} Retrying in ${Math.ceil(delayMs / 1000)} s (retry ${attempt} of ${maxRetries}).`,
    retry: { problem, attempt, maxRetries, delayMs },
  };
}
