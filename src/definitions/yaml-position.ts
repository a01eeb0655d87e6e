// Owns where a value sits in the YAML text: a path (`exports`, 2, `schedule`, `cron`) is walked
// through the parsed document's nodes, which keep their offsets, and the offset becomes a line and
// column through the parser's LineCounter. A path that ends at a missing key points at the mapping
// that lacks it; an alias is followed to its anchor.

import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

export interface TextPosition {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

/** The node at `path`, or the deepest node on the way to it; `atKey` takes the last key itself. */
function nodeAt(doc: Document, path: readonly PropertyKey[], atKey: boolean): Node | undefined {
  let node: unknown = doc.contents;
  let found: Node | undefined = (doc.contents as Node | null) ?? undefined;
  for (let i = 0; i < path.length; i++) {
    if (isAlias(node)) node = node.resolve(doc);
    const segment = path[i];
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(segment));
      if (pair === undefined) return found;
      const last = i === path.length - 1;
      // `key:` with nothing after it holds an empty null scalar after the colon: the key is clearer.
      const empty = pair.value === null || (isScalar(pair.value) && pair.value.source === '');
      next = (last && atKey) || empty ? pair.key : pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      next = node.items[segment];
    } else {
      return found;
    }
    if (next === undefined || next === null) return found;
    node = next;
    found = next as Node;
  }
  return found;
}

/** Line and column of the value at `path` (of its key when `atKey`), or of the nearest node that exists. */
export function positionAt(
  doc: Document,
  lineCounter: LineCounter,
  path: readonly PropertyKey[],
  atKey = false,
): TextPosition {
  const offset = nodeAt(doc, path, atKey)?.range?.[0] ?? 0;
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** Line and column of an offset in the text. */
export function positionOfOffset(lineCounter: LineCounter, offset: number): TextPosition {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}
