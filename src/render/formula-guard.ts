// The CSV formula-injection guard (OWASP "CSV Injection", ASVS 5.0 requirement 1.2.10): a text cell
// that a spreadsheet would read as the start of a formula gets a leading `'`, which Excel, LibreOffice
// and Google Sheets treat as "this is text". Only text from the data goes through here: numbers,
// dates and offsets are formatted by us from numbers (a `-12` longitude or a `+05:30` offset cannot
// carry a formula) and keep their exact form.
//
// The set: `=` `+` `-` `@` tab and CR (OWASP); NUL (ASVS 5.0 adds it); and the full-width forms
// ＝ ＋ － ＠ (U+FF1D, U+FF0B, U+FF0D, U+FF20), which Apple Numbers normalises to the ASCII
// operators — csv-stringify's `escape_formulas` guards them too.
//
// Leading blanks do not hide a trigger: LibreOffice's "trim spaces" import option (and people who
// tidy a sheet with TRIM) strip leading white space and evaluate what follows, so ` =1+1`,
// `\u00a0=HYPERLINK(…)` and `\u3000@SUM(1)` are guarded too. A blank here is Unicode White_Space,
// a control character (Cc) or a format character (Cf: zero-width space, joiners, BOM, bidi marks…),
// and a tab, CR or NUL among the blanks is a trigger itself. This guards more than csv-stringify,
// which looks at the first character only: on every text whose first character is not a blank the
// two agree (held by a property test).

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

/** The leading blanks of a text: what a trimming importer skips before it looks for a formula. */
const LEADING_BLANKS = /^[\p{White_Space}\p{Cc}\p{Cf}]*/u;

function isTrigger(code: number): boolean {
  switch (code) {
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

/** True when `text` would need the guard's prefix. */
export function startsLikeFormula(text: string): boolean {
  // A switch on the first code unit: this runs for every text cell of every row. Printable ASCII
  // other than a trigger (letters, digits, punctuation) settles it; only a text that starts with a
  // space, a control or a non-ASCII character looks further.
  const first = text.charCodeAt(0);
  if (isTrigger(first)) return true;
  if (first > 0x20 && first < 0x7f) return false;
  return text.length > 0 && triggerAfterBlanks(text);
}

function triggerAfterBlanks(text: string): boolean {
  const blanks = LEADING_BLANKS.exec(text)?.[0] ?? '';
  if (blanks === '') return false;
  for (let i = 0; i < blanks.length; i++) if (isTrigger(blanks.charCodeAt(i))) return true;
  return isTrigger(text.charCodeAt(blanks.length));
}

/** `text` with a leading `'` when a spreadsheet could read it as a formula; otherwise unchanged. */
export function guardFormula(text: string): string {
  return startsLikeFormula(text) ? `'${text}` : text;
}
