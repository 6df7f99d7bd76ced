/**
 * How stored messages read on screen: without the fences the engine puts around user words
 * and tool results for the model (shared/fences.ts).
 */
import { toolText, userParts, userText } from '../../shared/fences';

export { toolText, userParts, userText };

/** Tool arguments as indented JSON when they parse, as given otherwise. */
export function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}
