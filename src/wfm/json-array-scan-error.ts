// The error of the JSON array scanner (json-array-scanner.ts): what was wrong with the body, and
// at which byte. The report reader turns it into a typed WFM error.

export type JsonArrayScanErrorKind =
  'not-an-array' | 'truncated' | 'trailing-data' | 'malformed' | 'row-too-large' | 'body-too-large';

/** The body is not one well-formed JSON array within the limits. `offset` is a byte offset. */
export class JsonArrayScanError extends Error {
  readonly kind: JsonArrayScanErrorKind;
  readonly offset: number;

  constructor(kind: JsonArrayScanErrorKind, offset: number, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'JsonArrayScanError';
    this.kind = kind;
    this.offset = offset;
  }
}
