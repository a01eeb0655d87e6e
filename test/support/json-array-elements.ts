// The elements of a JSON array body as the bytes that were sent, split by a plain byte walk that
// shares no code with the client: the oracle for "rejected.csv's raw_json is the row as received".

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Each element's bytes, outer white space trimmed. */
export function jsonArrayElements(body: Uint8Array): Buffer[] {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const elements: Buffer[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  const cut = (end: number): void => {
    let s = start;
    let e = end;
    while (s < e && isWhitespace(bytes[s])) s++;
    while (e > s && isWhitespace(bytes[e - 1])) e--;
    if (e > s) elements.push(bytes.subarray(s, e));
  };
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      depth++;
      if (depth === 1) start = i + 1;
    } else if (b === 0x5d || b === 0x7d) {
      depth--;
      if (depth === 0) cut(i);
    } else if (b === 0x2c && depth === 1) {
      cut(i);
      start = i + 1;
    }
  }
  return elements;
}
