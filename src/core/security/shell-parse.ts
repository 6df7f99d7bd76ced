/**
 * A small shell-syntax reader for the command denylist. It understands what an evasive
 * command would use to hide a destructive call from a naive string match: quotes and
 * backslashes inside words (`r"m"`, `\rm`), separators (`;`, `&&`, `||`, `|`, `&`,
 * newlines, parentheses), redirections, `$(...)`, backticks and `<(...)`. It does not
 * expand variables, globs or aliases: it is a policy aid, not a shell.
 */

export interface Redirect {
  op: string;
  target: string;
}

export interface SimpleCommand {
  /** Words with quotes and escapes removed; substitutions appear as `$(…)`. */
  words: string[];
  redirects: Redirect[];
  /** Inner text of `$(...)`, backticks and `<(...)`/`>(...)` in this command. */
  substitutions: string[];
  /** Bodies of `<<EOF` here-documents and `<<<` here-strings fed to this command. */
  heredocs: string[];
}

/** Commands joined by `|`; a plain command is a pipeline of one. */
export type Pipeline = SimpleCommand[];

const SUBSTITUTION_WORD = '$(…)';

/** Splits a command line into pipelines of simple commands. */
export function parseShell(input: string): Pipeline[] {
  return new ShellReader(normalise(input)).read();
}

/** `${IFS}` stands for whitespace in evasive commands; line continuations join lines. */
function normalise(input: string): string {
  return input.replace(/\\\r?\n/g, '').replace(/\$\{IFS\}|\$IFS\b/g, ' ');
}

class ShellReader {
  private pos = 0;
  private pipelines: Pipeline[] = [];
  private pipeline: Pipeline = [];
  private command: SimpleCommand = emptyCommand();
  private word: string | null = null;
  /** Here-documents whose bodies start after the current line. */
  private pendingHeredocs: Array<{ command: SimpleCommand; delimiter: string; stripTabs: boolean }> = [];

  constructor(private readonly text: string) {}

  read(): Pipeline[] {
    while (this.pos < this.text.length) this.step();
    this.endPipeline();
    return this.pipelines;
  }

  private step(): void {
    const c = this.text[this.pos];
    const next = this.text[this.pos + 1];
    if (c === ' ' || c === '\t' || c === '\r') {
      this.endWord();
      this.pos++;
    } else if (c === '#' && this.word === null) {
      this.skipComment();
    } else if (c === '|' && next !== '|') {
      this.pos += next === '&' ? 2 : 1;
      this.endCommand();
    } else if (c === '&' && next === '>') {
      this.readRedirect();
    } else if (c === '\n' && this.pendingHeredocs.length) {
      this.pos++;
      this.readHeredocBodies();
      this.endPipeline();
    } else if (c === ';' || c === '&' || c === '|' || c === '\n' || c === '(' || c === ')') {
      this.pos += (c === '&' || c === '|' || c === ';') && next === c ? 2 : 1;
      this.endPipeline();
    } else if ((c === '<' || c === '>') && next === '(') {
      this.pos += 2;
      this.addSubstitution(this.readBalanced(')'));
    } else if (c === '<' || c === '>') {
      this.readRedirect();
    } else {
      this.readWordPart();
    }
  }

  /** Quotes, escapes, substitutions and plain characters: all extend the current word. */
  private readWordPart(): void {
    const c = this.text[this.pos];
    if (this.readExpansion()) return;
    if (c === "'") {
      const end = this.text.indexOf("'", this.pos + 1);
      const stop = end === -1 ? this.text.length : end;
      this.append(this.text.slice(this.pos + 1, stop));
      this.pos = stop + 1;
    } else if (c === '"') {
      this.readDoubleQuoted();
    } else if (c === '\\') {
      this.append(this.text[this.pos + 1] ?? '');
      this.pos += 2;
    } else {
      this.append(c);
      this.pos++;
    }
  }

  private readDoubleQuoted(): void {
    this.pos++;
    this.append('');
    while (this.pos < this.text.length && this.text[this.pos] !== '"') {
      const c = this.text[this.pos];
      if (this.readExpansion()) continue;
      if (c === '\\' && '"\\$`'.includes(this.text[this.pos + 1] ?? '')) {
        this.append(this.text[this.pos + 1]);
        this.pos += 2;
      } else {
        this.append(c);
        this.pos++;
      }
    }
    this.pos++;
  }

  /** `$(...)`, backticks and `${NAME}`; true when one was consumed. */
  private readExpansion(): boolean {
    const c = this.text[this.pos];
    const next = this.text[this.pos + 1];
    if (c === '$' && next === '(') {
      this.pos += 2;
      this.addSubstitution(this.readBalanced(')'));
      this.append(SUBSTITUTION_WORD);
    } else if (c === '`') {
      this.pos++;
      this.addSubstitution(this.readBacktick());
      this.append(SUBSTITUTION_WORD);
    } else if (c === '$' && next === '{') {
      const end = this.text.indexOf('}', this.pos);
      const stop = end === -1 ? this.text.length : end;
      this.append('$' + this.text.slice(this.pos + 2, stop));
      this.pos = stop + 1;
    } else {
      return false;
    }
    return true;
  }

  /** Text up to the matching close parenthesis, skipping quoted parts. */
  private readBalanced(close: string): string {
    const start = this.pos;
    let depth = 1;
    while (this.pos < this.text.length) {
      const c = this.text[this.pos];
      if (c === '\\') this.pos++;
      else if (c === "'" || c === '"') this.skipQuoted(c);
      else if (c === '(') depth++;
      else if (c === close && --depth === 0) break;
      this.pos++;
    }
    const inner = this.text.slice(start, this.pos);
    this.pos++;
    return inner;
  }

  private skipQuoted(quote: string): void {
    this.pos++;
    while (this.pos < this.text.length && this.text[this.pos] !== quote) {
      if (quote === '"' && this.text[this.pos] === '\\') this.pos++;
      this.pos++;
    }
  }

  private readBacktick(): string {
    let inner = '';
    while (this.pos < this.text.length && this.text[this.pos] !== '`') {
      if (this.text[this.pos] === '\\' && this.pos + 1 < this.text.length) this.pos++;
      inner += this.text[this.pos++];
    }
    this.pos++;
    return inner;
  }

  /** `>`, `>>`, `>|`, `&>`, `2>&1`, `<`, `<<<`: records the target, which may be written. */
  private readRedirect(): void {
    if (this.word !== null && /^\d+$/.test(this.word)) this.word = null; // a file descriptor
    this.endWord();
    let op = '';
    while (this.pos < this.text.length && '<>&|'.includes(this.text[this.pos]) && op.length < 3) {
      op += this.text[this.pos++];
    }
    if (op === '<<' && this.text[this.pos] === '-') op += this.text[this.pos++];
    while (this.text[this.pos] === ' ' || this.text[this.pos] === '\t') this.pos++;
    while (this.pos < this.text.length && !' \t\r\n;&|()<>'.includes(this.text[this.pos])) this.readWordPart();
    const target = this.word ?? '';
    this.word = null;
    // `2>&1` and `>&-` duplicate or close descriptors; they write no file.
    const duplicatesFd = op.includes('&') && /^(\d+|-)$/.test(target);
    if (op === '<<' || op === '<<-') {
      this.pendingHeredocs.push({ command: this.command, delimiter: target, stripTabs: op === '<<-' });
    } else if (op === '<<<') {
      this.command.heredocs.push(target);
    } else if (!duplicatesFd) {
      this.command.redirects.push({ op, target });
    }
  }

  /** The lines after a `<<DELIM` line, up to DELIM, belong to the command that asked for them. */
  private readHeredocBodies(): void {
    for (const { command, delimiter, stripTabs } of this.pendingHeredocs) {
      const body: string[] = [];
      while (this.pos < this.text.length) {
        const end = this.text.indexOf('\n', this.pos);
        const stop = end === -1 ? this.text.length : end;
        const line = this.text.slice(this.pos, stop);
        this.pos = stop + 1;
        if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
        body.push(line);
      }
      command.heredocs.push(body.join('\n'));
    }
    this.pendingHeredocs = [];
  }

  private skipComment(): void {
    while (this.pos < this.text.length && this.text[this.pos] !== '\n') this.pos++;
  }

  private append(s: string): void {
    this.word = (this.word ?? '') + s;
  }

  private addSubstitution(inner: string): void {
    this.command.substitutions.push(inner);
  }

  private endWord(): void {
    if (this.word !== null) this.command.words.push(this.word);
    this.word = null;
  }

  private endCommand(): void {
    this.endWord();
    const c = this.command;
    if (c.words.length || c.redirects.length || c.substitutions.length || this.pendingHeredocs.some((h) => h.command === c)) {
      this.pipeline.push(c);
    }
    this.command = emptyCommand();
  }

  private endPipeline(): void {
    this.endCommand();
    if (this.pipeline.length) this.pipelines.push(this.pipeline);
    this.pipeline = [];
  }
}

function emptyCommand(): SimpleCommand {
  return { words: [], redirects: [], substitutions: [], heredocs: [] };
}
