/**
 * Character references in text that is shown, never parsed: marked leaves named references
 * (`&amp;`) in its text tokens and highlight.js escapes the code it returns, so both are
 * decoded here into plain characters for React to display. Numeric references and the
 * common named ones are decoded; any other name is shown as written.
 */
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
  times: '×',
  rarr: '→',
  larr: '←',
};

const REFERENCE = /&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi;

export function decodeCharacterReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole, name: string) => {
    if (name[0] !== '#') return NAMED[name] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return isValidCodePoint(code) ? String.fromCodePoint(code) : '\ufffd';
  });
}

function isValidCodePoint(code: number): boolean {
  return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
}
