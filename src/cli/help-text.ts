/**
 * `loom --help`: the options table laid out as commander laid it out (a group per title,
 * each description beside its flags, wrapped to the terminal or to 80 columns).
 */
import type { OptionGroup, OptionSpec } from './option-parser';

export interface HelpPage {
  usage: string;
  description: string;
  groups: readonly OptionGroup[];
  /** Printed as is after the options. */
  epilogue: string;
}

const INDENT = 2;
const GAP = 2;
/** Narrower than this, a description is left on one line (wrapping would make a ribbon). */
const MIN_WRAP_WIDTH = 40;

export function renderHelp(page: HelpPage, width = 80): string {
  const termWidth = Math.max(...page.groups.flatMap((group) => group.options.map((option) => option.flags.length)));
  const sections = page.groups.map((group) => [`${group.title}`, ...group.options.map((option) => item(option, termWidth, width))].join('\n'));
  return [`Usage: ${page.usage}`, wrap(page.description, width), ...sections].join('\n\n') + `\n${page.epilogue}\n`;
}

function item(option: OptionSpec, termWidth: number, width: number): string {
  const descriptionColumn = INDENT + termWidth + GAP;
  const lines = wrap(describe(option), width - descriptionColumn).split('\n');
  return `${' '.repeat(INDENT)}${option.flags.padEnd(termWidth + GAP)}${lines.join(`\n${' '.repeat(descriptionColumn)}`)}`;
}

function describe(option: OptionSpec): string {
  const extras = [
    ...(option.choices ? [`choices: ${option.choices.map((choice) => JSON.stringify(choice)).join(', ')}`] : []),
    ...(option.defaultValue !== undefined ? [`default: ${JSON.stringify(option.defaultValue)}`] : []),
  ];
  return extras.length ? `${option.description} (${extras.join(', ')})` : option.description;
}

/** Breaks `text` at spaces into lines of at most `width` characters (a longer word keeps its own line). */
function wrap(text: string, width: number): string {
  if (width < MIN_WRAP_WIDTH) return text;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}
