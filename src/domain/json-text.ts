// Reading JSON text that JSON.parse has already accepted, for what JSON.parse does not return:
// where each element of an array starts and ends, and how each number of an object was written.
// Only for the rare row that needs it (see raw-rows.ts): plain loops, no validation of their own.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const MINUS = 0x2d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

export function isJsonWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function skipWhitespace(text: string, from: number): number {
  let i = from;
  while (isJsonWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/** Offset of the `"` that closes the string whose body starts at `from` (text.length if none). */
function closingQuote(text: string, from: number): number {
  for (let at = text.indexOf('"', from); at >= 0; at = text.indexOf('"', at + 1)) {
    let run = 0;
    for (let k = at - 1; k >= from && text.charCodeAt(k) === BACKSLASH; k--) run++;
    if ((run & 1) === 0) return at;
  }
  return text.length;
}

/** Offset just past the value that starts at `from`. */
function valueEnd(text: string, from: number): number {
  const c = text.charCodeAt(from);
  if (c === QUOTE) return closingQuote(text, from + 1) + 1;
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    let i = from;
    for (;;) {
      const d = text.charCodeAt(i);
      if (Number.isNaN(d) || d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isJsonWhitespace(d))
        return i;
      i++;
    }
  }
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === QUOTE) i = closingQuote(text, i + 1);
    else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
  }
  return text.length;
}

function trimmedEnd(text: string, end: number): number {
  let e = end;
  while (isJsonWhitespace(text.charCodeAt(e - 1))) e--;
  return e;
}

/**
 * [start, end) of each element of the JSON array `text`, outer white space trimmed, as pairs in one
 * array. Any string whose code units below 0x80 are the array's ASCII bytes works: a UTF-8
 * decoding (offsets in code units) or a latin1 one (offsets in bytes), since every structural
 * character is ASCII and no byte of a multi-byte UTF-8 character is.
 */
export function arrayElementBounds(text: string): number[] {
  const bounds: number[] = [];
  let i = skipWhitespace(text, 0) + 1;
  for (;;) {
    i = skipWhitespace(text, i);
    const c = text.charCodeAt(i);
    if (Number.isNaN(c) || c === CLOSE_BRACKET) return bounds;
    const end = valueEnd(text, i);
    bounds.push(i, trimmedEnd(text, end));
    i = skipWhitespace(text, end);
    if (text.charCodeAt(i) !== COMMA) return bounds;
    i++;
  }
}

/**
 * The members of the JSON object `text` whose values are numbers, each as written: key (escapes
 * decoded) → the number's text. A key given twice counts as JSON.parse counts it: the last one.
 */
export function objectNumberTexts(text: string): Map<string, string> {
  const members = new Map<string, string>();
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return members;
  i++;
  for (;;) {
    i = skipWhitespace(text, i);
    if (text.charCodeAt(i) !== QUOTE) return members;
    const keyEnd = closingQuote(text, i + 1);
    let key = text.slice(i + 1, keyEnd);
    if (key.includes('\\')) key = JSON.parse(text.slice(i, keyEnd + 1)) as string;
    i = skipWhitespace(text, skipWhitespace(text, keyEnd + 1) + 1); // past the `:`
    const end = valueEnd(text, i);
    const c = text.charCodeAt(i);
    if (c === MINUS || isDigit(c)) members.set(key, text.slice(i, end));
    else members.delete(key);
    i = skipWhitespace(text, end);
    if (text.charCodeAt(i) !== COMMA) return members;
    i++;
  }
}
