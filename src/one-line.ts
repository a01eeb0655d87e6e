// Text from outside (an upstream's error body, job data and failure reasons read from Redis, a
// destination path) ends up on an operator's terminal through error lines and `status`. A terminal
// obeys what it is sent: ESC starts a control sequence (colours, cursor moves, a rewritten title,
// OSC 8 links), a lone CR returns to the start of the line and lets the rest overwrite what came
// before, bidi overrides reorder what is shown. So such text is printed on one line with every
// character a terminal would act on written as a visible escape (`\u{1b}`), never as itself.

// C0 controls (tab included: it would break the one-line, column-aligned output), DEL, C1
// controls, the Unicode line and paragraph separators, and the bidi embedding/override/isolate
// controls (Trojan Source, CVE-2021-42574).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** C0 and C1 control characters, DEL included: never in a path, key, header or query template. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

export const hasControlCharacters = (text: string): boolean => CONTROL_CHARACTERS.test(text);

function escape(char: string): string {
  return `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`;
}

/**
 * `text` as one terminal-safe line: line breaks (with the white space around them) become one
 * space; every other character a terminal acts on becomes a visible `\u{…}` escape.
 */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(UNPRINTABLE, escape);
}
