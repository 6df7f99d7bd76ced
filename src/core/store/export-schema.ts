/**
 * Reading a JSON export back (docs/DESIGN.md#export-format): the strict zod schema of every
 * version Loom reads. Apart from export.ts (the rendering) so that commands that only read or
 * export sessions never load zod (docs/ARCHITECTURE.md#the-node-build).
 */
import { z } from 'zod';
import { CALL_KINDS, CHILD_STATES, SESSION_STATUSES, TODO_STATUSES, type ChildState } from '../../shared/types';
import { LoomError } from '../errors';
import { imageDataProblem } from '../security/image-data';
import { checkContext, ContextRuleError, type CheckedContext } from './context-rules';
import { EXPORT_FORMAT, type TreeFields } from './export';

const READ_VERSIONS: readonly unknown[] = [1, 2, 3];

// ---- the JSON document (docs/DESIGN.md#export-format), validated strictly on import ----

const timestamp = z.iso.datetime({ offset: true });
const count = z.number().int().nonnegative();

const toolCallSchema = z.strictObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});

/** Version 3: a user message with images has parts, as the OpenAI chat format writes them. */
const userPartsSchema = z
  .array(
    z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('text'), text: z.string() }),
      z.strictObject({
        type: z.literal('image_url'),
        image_url: z.strictObject({
          url: z.string().superRefine((url, ctx) => {
            const problem = imageDataProblem(url);
            if (problem) ctx.addIssue({ code: 'custom', message: `not an image Loom accepts: ${problem}` });
          }),
        }),
      }),
    ]),
  )
  .min(1)
  .max(64);

const messageSchemaWith = <C extends z.ZodType<string | z.infer<typeof userPartsSchema>>>(userContent: C) =>
  z.discriminatedUnion('role', [
    z.strictObject({ role: z.literal('system'), content: z.string() }),
    z.strictObject({ role: z.literal('user'), content: userContent }),
    z.strictObject({
      role: z.literal('assistant'),
      content: z.string().nullable(),
      tool_calls: z.array(toolCallSchema).min(1).optional(),
      stopped: z.literal(true).optional(),
    }),
    z.strictObject({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
  ]);
const textMessageSchema = messageSchemaWith(z.string());
const messageSchema = messageSchemaWith(z.union([z.string(), userPartsSchema]));

const totalsSchema = z.strictObject({
  calls: count,
  prompt_tokens: count,
  completion_tokens: count,
  cost_usd: z.number().nonnegative(),
});

const tokens = count.optional();
/** MessageFacts, checked like everything else an import takes (docs/DESIGN.md#per-message-facts). */
const factsSchema = z.strictObject({
  at: timestamp,
  model: z.string().max(200).optional(),
  prompt_tokens: tokens,
  completion_tokens: tokens,
  cost_usd: z.number().nonnegative().optional(),
  latency_ms: z.number().nonnegative().optional(),
  tokens_per_second: z.number().nonnegative().optional(),
  estimated: z.boolean().optional(),
});

const modelChangeSchema = z.strictObject({ at: timestamp, from: z.string().max(200).nullable(), to: z.string().min(1).max(200), transcript_index: count });

const agentName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/i, 'is not an agent name');
const agentChangeSchema = z.strictObject({ at: timestamp, from: agentName.nullable(), to: agentName, transcript_index: count });

type MessageSchema = typeof messageSchema | typeof textMessageSchema;

const sessionFieldsWith = <M extends MessageSchema>(message: M) => ({
  id: z.string(),
  parent_id: z.string().nullable(),
  title: z.string().nullable(),
  summary: z.string().nullable(),
  status: z.enum(SESSION_STATUSES),
  archived: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
  model: z.string().nullable(),
  // Information only (a resumed session works in the folder it is resumed in), but shown
  // to the user, so it must not carry terminal control characters.
  cwd: z
    .string()
    .max(4096)
    .regex(/^\P{Cc}*$/u, 'contains control characters')
    .nullable(),
  messages: z.array(message),
  transcript: z.array(message),
  compactions: z.array(z.strictObject({ at: timestamp, before_tokens: count, after_tokens: count, summary: z.string(), transcript_index: count.optional() })),
  plan: z.strictObject({
    todos: z.array(z.strictObject({ id: z.number().int(), text: z.string(), status: z.enum(TODO_STATUSES), retries: count })),
    scratchpad: z.string(),
  }),
  usage: totalsSchema.extend({
    by_kind: z.strictObject(Object.fromEntries(CALL_KINDS.map((k) => [k, totalsSchema])) as Record<(typeof CALL_KINDS)[number], typeof totalsSchema>),
  }),
  // Optional: exports made before Loom recorded them have neither.
  transcript_facts: z.array(factsSchema.nullable()).optional(),
  model_changes: z.array(modelChangeSchema).optional(),
  // Optional: exports made before sessions had agents have neither.
  agent: agentName.nullable().optional(),
  agent_changes: z.array(agentChangeSchema).optional(),
});
const textSessionFields = sessionFieldsWith(textMessageSchema);
const sessionFields = sessionFieldsWith(messageSchema);

/** Version 2: where a fork's history came from, and how its working context derives from its transcript. */
const treeFieldsWith = <M extends MessageSchema>(message: M) => ({
  fork: z.strictObject({ parent_id: z.string(), at: count }).nullable(),
  context_start: z.strictObject({ kept_from: count, with_system: z.boolean(), head: z.array(message) }),
});

function placedCompactions(
  session: {
    compactions: { transcript_index?: number }[];
    transcript: unknown[];
    transcript_facts?: unknown[];
    model_changes?: { transcript_index: number }[];
    agent_changes?: { transcript_index: number }[];
  },
  ctx: z.RefinementCtx,
): void {
  const length = session.transcript.length;
  if (session.transcript_facts && session.transcript_facts.length !== length) {
    ctx.addIssue({ code: 'custom', path: ['transcript_facts'], message: `has ${session.transcript_facts.length} entries for ${length} transcript messages` });
  }
  for (const field of ['model_changes', 'agent_changes'] as const) {
    session[field]?.forEach((c, i) => {
      if (c.transcript_index > length) {
        ctx.addIssue({
          code: 'custom',
          path: [field, i, 'transcript_index'],
          message: `${c.transcript_index} is past the end of the transcript (${length} messages)`,
        });
      }
    });
  }
  session.compactions.forEach((c, i) => {
    if (c.transcript_index !== undefined && c.transcript_index > session.transcript.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['compactions', i, 'transcript_index'],
        message: `${c.transcript_index} is past the end of the transcript (${session.transcript.length} messages)`,
      });
    }
  });
}

/**
 * `messages` stays what an import builds the context from (a user may edit it, as in
 * version 1); the start is there for readers, so it only has to point inside the transcript.
 */
function startInsideTranscript(session: { context_start: { kept_from: number }; transcript: unknown[] }, ctx: z.RefinementCtx): void {
  if (session.context_start.kept_from > session.transcript.length) {
    ctx.addIssue({ code: 'custom', path: ['context_start', 'kept_from'], message: `past the end of the transcript (${session.transcript.length} messages)` });
  }
}

/**
 * How many sub-agent sessions one export may carry: far more than a parent's tool-call
 * budget starts, and a bound on what a hostile document makes an import write.
 */
export const MAX_EXPORTED_CHILDREN = 1000;

const v3Session = z
  .strictObject({ ...sessionFields, ...treeFieldsWith(messageSchema) })
  .superRefine(placedCompactions)
  .superRefine(startInsideTranscript);

/** A sub-agent's session in its parent's export (docs/DESIGN.md#export-version-3): its link and its whole session, no children of its own (depth 1). */
const childSchema = z.strictObject({
  call_id: z.string().min(1).max(200),
  agent: agentName,
  state: z.enum(CHILD_STATES),
  session: v3Session,
});

const exportSchemas = {
  1: z.strictObject({
    format: z.literal(EXPORT_FORMAT),
    version: z.literal(1),
    exported_at: timestamp,
    session: z.strictObject(textSessionFields).superRefine(placedCompactions),
  }),
  2: z.strictObject({
    format: z.literal(EXPORT_FORMAT),
    version: z.literal(2),
    exported_at: timestamp,
    session: z
      .strictObject({ ...textSessionFields, ...treeFieldsWith(textMessageSchema) })
      .superRefine(placedCompactions)
      .superRefine(startInsideTranscript),
  }),
  3: z.strictObject({
    format: z.literal(EXPORT_FORMAT),
    version: z.literal(3),
    exported_at: timestamp,
    session: v3Session,
    // Optional: only a session with sub-agents has them.
    children: z.array(childSchema).min(1).max(MAX_EXPORTED_CHILDREN).optional(),
  }),
};

/** What an import keeps of any version: the context is rebuilt from `messages`, a fork imports as a session of its own. */
export type ExportedSession = z.infer<z.ZodObject<typeof sessionFields>>;

export interface ParsedExport {
  /** Its working context obeys the chat rules (context-rules.ts), repaired where it could be. */
  session: ExportedSession;
  /** Tool calls without a result that were closed with a "no result" result. */
  closedCalls: number;
  children: ParsedChild[];
}

/** A sub-agent's session, checked as its parent is. */
export interface ParsedChild {
  session: ExportedSession;
  closedCalls: number;
  /** Null when the export's link named no call of the parent's transcript, or one another child already has. */
  link: { call_id: string; agent: string; state: ChildState } | null;
}

/** Parses and validates an export; one LoomError saying what is wrong otherwise. */
export function parseExport(text: string): ParsedExport {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new LoomError('Not a Loom session export: the file is not valid JSON.', 'bad_import');
  }
  const head = (typeof doc === 'object' && doc !== null ? doc : {}) as { format?: unknown; version?: unknown };
  if (head.format !== EXPORT_FORMAT) {
    throw new LoomError(`Not a Loom session export: "format" must be "${EXPORT_FORMAT}" (got ${describe(head.format)}).`, 'bad_import');
  }
  if (!READ_VERSIONS.includes(head.version)) {
    throw new LoomError(`Unsupported Loom session export version ${describe(head.version)}; this Loom reads versions 1 to 3.`, 'bad_import');
  }
  checkChildrenShape(doc as { children?: unknown });
  const parsed = exportSchemas[head.version as 1 | 2 | 3].safeParse(doc);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const where = issue?.path.length ? issue.path.join('.') : 'the document';
    throw invalidExport(where, issue?.message ?? 'it does not match the export format');
  }
  const { session, closedCalls } = checkedSession(parsed.data.session, 'session');
  const calls = new Set(session.transcript.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [])));
  const children = ('children' in parsed.data ? (parsed.data.children ?? []) : []).map(({ call_id, agent, state, session: child }, i): ParsedChild => {
    // A link is kept once, to a call the parent made: anything else would name a call no result of the parent answers.
    const linked = calls.delete(call_id);
    // The child cannot be running in this store: nothing here runs it.
    const link = linked ? { call_id, agent, state: state === 'running' ? ('interrupted' as const) : state } : null;
    return { ...checkedSession(child, `children.${i}.session`), link };
  });
  return { session, closedCalls, children };
}

/** Checked before the schema: a bound and a depth read at once, rather than thousands of sessions parsed first. */
function checkChildrenShape(doc: { children?: unknown }): void {
  if (!Array.isArray(doc.children)) return;
  if (doc.children.length > MAX_EXPORTED_CHILDREN) {
    throw invalidExport('children', `${doc.children.length} sub-agent sessions, more than the ${MAX_EXPORTED_CHILDREN} an import takes`);
  }
  const nested = doc.children.findIndex(
    (c: unknown) => typeof c === 'object' && c !== null && ('children' in c || 'children' in ((c as { session?: object }).session ?? {})),
  );
  if (nested >= 0) throw invalidExport(`children.${nested}`, "a sub-agent's own sub-agents are not imported (a sub-agent starts none)");
}

function checkedSession(exported: ExportedSession & Partial<TreeFields>, path: string): { session: ExportedSession; closedCalls: number } {
  const { fork: _fork, context_start: _start, ...session } = exported;
  const context = checkedContext(session.messages, path);
  return { session: { ...session, messages: context.messages }, closedCalls: context.closedCalls };
}

function checkedContext(messages: ExportedSession['messages'], path: string): CheckedContext {
  try {
    return checkContext(messages);
  } catch (err) {
    if (err instanceof ContextRuleError) throw invalidExport(`${path}.messages.${err.index}`, err.reason);
    throw err;
  }
}

function invalidExport(where: string, problem: string): LoomError {
  return new LoomError(`Not a valid Loom session export: ${where}: ${problem}.`, 'bad_import');
}

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}
