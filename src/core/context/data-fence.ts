/**
 * The fence around what Loom puts into a compacted context as data: the summary's boundary
 * message and the carried message (docs/DESIGN.md#compaction).
 */
import { fenceTagPattern } from '../../shared/fences';

export const BOUNDARY_OPEN = '<session_context_data>';
export const BOUNDARY_CLOSE = '</session_context_data>';

/**
 * What goes inside is model output or the user's text and so untrusted: it must not be
 * able to close (or open) the fence that marks it as data, so every spelling of the tag
 * loses its '<'.
 */
export function neutraliseBoundaryTags(text: string): string {
  return text.replace(fenceTagPattern(['session_context_data'], '<'), '[$1');
}
