/**
 * Whether a sed script only prints: the known-safe check (known-safe.ts) lets `sed -n`
 * run without asking when its script is made of nothing but addresses and the commands
 * below. The script is read the way GNU sed reads it (a delimiter ends a regex unless a
 * backslash escapes it), and anything this reader does not know is "not print-only":
 * `w`/`W` (write a file), `r`/`R` (read one), `e` (run a command), `s///w` and `s///e`,
 * labels and branches, `a`/`i`/`c` text, a newline inside a regex.
 */

/** Commands of one letter that take no argument and touch no file. */
const PRINTING_COMMANDS = new Set(['p', 'P', '=', 'l', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', 'z', 'F']);
/** `q5`, `Q`: stop, with an optional exit code. */
const QUIT_COMMANDS = new Set(['q', 'Q']);
/** Flags of `s///` that neither write (`w`) nor run the pattern space as a command (`e`). */
const SUBSTITUTE_FLAGS = /^[gpiImM0-9]*$/;

export function isPrintOnlySedScript(script: string): boolean {
  try {
    return new SedReader(script).readAll();
  } catch (err) {
    if (err instanceof NotPrintOnly) return false;
    throw err;
  }
}

class NotPrintOnly extends Error {}

class SedReader {
  private at = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  readAll(): boolean {
    for (;;) {
      this.skip(/[\s;]/);
      if (this.at >= this.text.length) return this.depth === 0;
      this.readCommand();
    }
  }

  private readCommand(): void {
    this.readAddresses();
    this.skip(/[\s!]/);
    const command = this.next();
    if (command === undefined) throw new NotPrintOnly(); // an address with no command
    if (command === '{') {
      this.depth++; // a block's first command may follow at once
      return;
    }
    if (command === '}') this.closeBlock();
    else if (command === 's') this.readSubstitute();
    else if (command === 'y') this.readDelimited(2);
    else if (command === '#') this.skipComment();
    else if (QUIT_COMMANDS.has(command)) this.skip(/[ \t0-9]/);
    else if (!PRINTING_COMMANDS.has(command)) throw new NotPrintOnly();
    this.expectEnd();
  }

  /** `N`, `$`, `/re/I`, `\%re%`, `first~step`, and a second one after `,` (also `+N`, `~N`). */
  private readAddresses(): void {
    if (!this.readAddress()) return;
    this.skip(/[ \t]/);
    if (this.peek() !== ',') return;
    this.at++;
    this.skip(/[ \t]/);
    if (this.peek() === '+' || this.peek() === '~') this.at++;
    if (!this.readAddress()) throw new NotPrintOnly();
  }

  private readAddress(): boolean {
    const c = this.peek();
    if (c === '$') {
      this.at++;
      return true;
    }
    if (c !== undefined && /[0-9]/.test(c)) {
      this.skip(/[0-9~]/);
      return true;
    }
    if (c === '/' || c === '\\') {
      if (c === '\\') this.at++;
      this.readDelimited(1);
      this.skip(/[IM]/);
      return true;
    }
    return false;
  }

  private readSubstitute(): void {
    this.readDelimited(2);
    const flags = /^[^\s;}]*/.exec(this.text.slice(this.at))![0];
    if (!SUBSTITUTE_FLAGS.test(flags)) throw new NotPrintOnly();
    this.at += flags.length;
  }

  /** A delimiter, then `parts` pieces each ended by it; a backslash escapes the next character. */
  private readDelimited(parts: number): void {
    const delimiter = this.next();
    if (delimiter === undefined || delimiter === '\\' || delimiter === '\n') throw new NotPrintOnly();
    for (let read = 0; read < parts; read++) {
      for (;;) {
        const c = this.next();
        if (c === undefined || c === '\n') throw new NotPrintOnly();
        if (c === '\\') this.next();
        else if (c === delimiter) break;
      }
    }
  }

  private closeBlock(): void {
    if (this.depth === 0) throw new NotPrintOnly();
    this.depth--;
  }

  private skipComment(): void {
    while (this.at < this.text.length && this.text[this.at] !== '\n') this.at++;
  }

  /** A command ends at `;`, a newline, a `}` or the end of the script. */
  private expectEnd(): void {
    this.skip(/[ \t]/);
    const c = this.peek();
    if (c !== undefined && c !== ';' && c !== '\n' && c !== '}') throw new NotPrintOnly();
  }

  private skip(chars: RegExp): void {
    while (this.at < this.text.length && chars.test(this.text.charAt(this.at))) this.at++;
  }

  private peek(): string | undefined {
    return this.text[this.at];
  }

  private next(): string | undefined {
    return this.text[this.at++];
  }
}
