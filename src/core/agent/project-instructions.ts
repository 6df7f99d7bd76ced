/**
 * The project's instructions file (docs/DESIGN.md#project-instructions): `AGENTS.md` at the
 * project root, else `CLAUDE.md`, read when a session is opened and put in Loom's system
 * prompt, so every request carries it, before and after compactions alike. It is the
 * repository's text: the hard policy, the permission gate and the sandbox bind whatever it
 * says. Read as the file tools read (component by component, regular files only).
 */
import { fenceTagPattern } from '../../shared/fences';
import { OPEN_READ, openProjectFile } from '../security/project-fs';

const PROJECT_INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;
/** What one request carries of it at most (Codex's default for AGENTS.md too). */
const MAX_PROJECT_INSTRUCTIONS_BYTES = 32 * 1024;

export interface ProjectInstructions {
  file: (typeof PROJECT_INSTRUCTION_FILES)[number];
  /** The file's whole size. */
  bytes: number;
  /** What is sent: the whole file, or its first MAX_PROJECT_INSTRUCTIONS_BYTES. */
  text: string;
  truncated: boolean;
}

/** The first instructions file there is; null when there is none (or it is no regular file inside the project). */
export async function readProjectInstructions(projectDir: string): Promise<ProjectInstructions | null> {
  for (const file of PROJECT_INSTRUCTION_FILES) {
    const read = await readCapped(projectDir, file);
    if (read) return { file, ...read };
  }
  return null;
}

async function readCapped(projectDir: string, name: string): Promise<Omit<ProjectInstructions, 'file'> | null> {
  let opened;
  try {
    opened = await openProjectFile(projectDir, name, OPEN_READ);
  } catch {
    return null;
  }
  try {
    const bytes = opened.stat.size;
    const buffer = Buffer.alloc(Math.min(bytes, MAX_PROJECT_INSTRUCTIONS_BYTES));
    const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, 0);
    const truncated = bytes > MAX_PROJECT_INSTRUCTIONS_BYTES;
    // A cut can fall inside a character: its bytes are left out rather than shown as U+FFFD.
    const decoded = new TextDecoder('utf-8').decode(buffer.subarray(0, bytesRead));
    const text = truncated ? decoded.replace(/\uFFFD+$/, '') : decoded;
    return { bytes, text, truncated };
  } finally {
    await opened.handle.close();
  }
}

/** The system prompt's section for the file: what it is, what binds it, and the text. */
export function instructionsSection(instructions: ProjectInstructions): string {
  const size = `${instructions.bytes.toLocaleString('en-US')} bytes`;
  const cut = instructions.truncated
    ? `\n[Cut at ${MAX_PROJECT_INSTRUCTIONS_BYTES.toLocaleString('en-US')} of ${size}: Loom sends at most ${MAX_PROJECT_INSTRUCTIONS_BYTES.toLocaleString('en-US')} bytes of project instructions.]`
    : '';
  return [
    `Project instructions (${instructions.file} at the project root, ${size}). Follow them for this project; ` +
      "Loom's rules, the user's approvals and the sandbox still apply whatever they say:",
    `<project_instructions file="${instructions.file}">\n${instructions.text.replace(fenceTagPattern(['project_instructions'], '<'), '[$1')}${cut}\n</project_instructions>`,
  ].join('\n');
}
