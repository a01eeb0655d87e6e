// The CSV formula-injection guard (OWASP "CSV Injection", ASVS 5.0 requirement 1.2.10): a text cell
// that a spreadsheet would read as the start of a formula gets a leading `'`, which Excel, LibreOffice
// and Google Sheets treat as "this is text". Only text from the data goes through here: numbers,
// dates and offsets are formatted by us from numbers (a `-12` longitude or a `+05:30` offset cannot
// carry a formula) and keep their exact form.
//
// The set: `=` `+` `-` `@` tab and CR (OWASP); NUL (ASVS 5.0 adds it); and the full-width forms
// ＝ ＋ － ＠ (U+FF1D, U+FF0B, U+FF0D, U+FF20), which Apple Numbers normalises to the ASCII
// operators — csv-stringify's `escape_formulas` guards them too, so with them our guard equals
// csv-stringify's on every text that does not start with NUL.

/** The first characters that make a text cell dangerous, with why each is in the set. */
export const FORMULA_TRIGGERS: Readonly<Record<string, string>> = {
  '=': 'starts a formula',
  '+': 'starts a formula (Lotus compatibility)',
  '-': 'starts a formula (Lotus compatibility)',
  '@': 'starts a function call (Lotus compatibility, Excel implicit intersection)',
  '\t': 'is skipped by some importers, which then see the next character',
  '\r': 'is skipped by some importers, which then see the next character',
  '\0': 'listed by OWASP ASVS 5.0 (1.2.10)',
  '\uFF1D': 'full-width =, normalised to = by Apple Numbers',
  '\uFF0B': 'full-width +, normalised to + by Apple Numbers',
  '\uFF0D': 'full-width -, normalised to - by Apple Numbers',
  '\uFF20': 'full-width @, normalised to @ by Apple Numbers',
};

/** True when `text` would need the guard's prefix. */
export function startsLikeFormula(text: string): boolean {
  // A switch on the first code unit: this runs for every text cell of every row.
  switch (text.charCodeAt(0)) {
    case 0x3d: // =
    case 0x2b: // +
    case 0x2d: // -
    case 0x40: // @
    case 0x09: // tab
    case 0x0d: // CR
    case 0x00: // NUL
    case 0xff1d:
    case 0xff0b:
    case 0xff0d:
    case 0xff20:
      return true;
    default:
      return false;
  }
}

/** `text` with a leading `'` when a spreadsheet could read it as a formula; otherwise unchanged. */
export function guardFormula(text: string): string {
  return startsLikeFormula(text) ? `'${text}` : text;
}
