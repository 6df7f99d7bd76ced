/**
 * What a compaction of this session carries (docs/DESIGN.md#what-compaction-carries), read
 * at the moment of compacting: the pins from the store, the plan, and the ledger of the
 * session's own tool calls with each file's state on disk now.
 */
import type { CarriedFile, CarriedInput } from '../context/carried';
import { errorMessage, isLoomError } from '../errors';
import { OPEN_READ, openProjectFile } from '../security/project-fs';
import type { AgentSession } from './session';

/** Files whose state is looked up at one compaction: the newest, since the oldest go first anyway. */
const MAX_FILES = 200;

export async function carriedInput(session: AgentSession): Promise<CarriedInput> {
  const ledger = session.ledger();
  const files = await Promise.all(
    ledger.files.slice(-MAX_FILES).map(async (file): Promise<CarriedFile> => ({ ...file, state: await fileState(session.projectDir, file.path) })),
  );
  const pins = session.store
    .getPins(session.id)
    .map((pin) =>
      pin.seq === null ? { text: pin.text } : { text: pin.text, seq: pin.seq, role: pin.role === 'assistant' ? ('assistant' as const) : ('user' as const) },
    );
  return { pins, plan: session.plan, files, failing: ledger.failing };
}

/**
 * Where a file stands now: its size, or that it is gone. Opened as the file tools open
 * paths (component by component, regular files only), so a path the model chose is never
 * followed out of the project.
 */
async function fileState(projectDir: string, path: string): Promise<string> {
  try {
    const file = await openProjectFile(projectDir, path, OPEN_READ);
    await file.handle.close();
    return `${file.stat.size.toLocaleString('en-US')} bytes`;
  } catch (err) {
    if (isLoomError(err) && err.code === 'not_found') return 'no longer there';
    return `not readable (${errorMessage(err).replace(/\.$/, '')})`;
  }
}
