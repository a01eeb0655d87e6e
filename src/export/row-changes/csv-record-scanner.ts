// Cuts the bytes of a CSV file as we write it (RFC 4180: quoted fields may hold delimiters, quotes
// doubled, CR and LF) into records, without decoding or parsing fields: a record ends at a LF
// outside quotes; its CR LF is not part of it. A leading UTF-8 BOM and the header record are
// skipped. Works on Buffers with native indexOf, remembering the next quote and next LF so that a
// chunk is scanned once, not once per record.

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export type RecordListener = (record: Buffer) => void;

export class CsvRecordScanner {
  readonly #onRecord: RecordListener;
  /** Bytes not yet part of a complete record, starting at the record being read. */
  #buffer: Buffer = Buffer.alloc(0);
  /** Where scanning resumes inside #buffer. */
  #pos = 0;
  #inQuotes = false;
  #started = false;
  #headerSeen = false;

  constructor(onRecord: RecordListener) {
    this.#onRecord = onRecord;
  }

  push(chunk: Buffer): void {
    let buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    if (!this.#started) {
      if (buffer.length < BOM.length && BOM.subarray(0, buffer.length).equals(buffer)) {
        this.#buffer = buffer;
        return;
      }
      this.#started = true;
      if (buffer.subarray(0, BOM.length).equals(BOM)) buffer = buffer.subarray(BOM.length);
    }
    let start = 0;
    let pos = this.#pos;
    let inQuotes = this.#inQuotes;
    let nextQuote = -2;
    let nextLf = -2;
    for (;;) {
      if (nextQuote !== -1 && nextQuote < pos) nextQuote = buffer.indexOf(QUOTE, pos);
      if (inQuotes) {
        // Inside quotes only a quote matters; a doubled quote closes and reopens.
        if (nextQuote === -1) break;
        inQuotes = false;
        pos = nextQuote + 1;
        continue;
      }
      if (nextLf !== -1 && nextLf < pos) nextLf = buffer.indexOf(LF, pos);
      if (nextQuote !== -1 && (nextLf === -1 || nextQuote < nextLf)) {
        inQuotes = true;
        pos = nextQuote + 1;
        continue;
      }
      if (nextLf === -1) break;
      const end = nextLf > start && buffer[nextLf - 1] === CR ? nextLf - 1 : nextLf;
      this.#emit(buffer.subarray(start, end));
      start = nextLf + 1;
      pos = start;
    }
    // Copy the tail: keeping a subarray would pin the whole chunk in memory.
    this.#buffer = start === 0 ? buffer : Buffer.from(buffer.subarray(start));
    // Every byte up to the end has been looked at, inside quotes or not.
    this.#pos = buffer.length - start;
    this.#inQuotes = inQuotes;
  }

  /** The last record, when the file does not end with a record delimiter. */
  end(): void {
    const rest = this.#buffer;
    this.#buffer = Buffer.alloc(0);
    if (rest.length > 0) this.#emit(rest.at(-1) === CR ? rest.subarray(0, -1) : rest);
  }

  #emit(record: Buffer): void {
    if (!this.#headerSeen) {
      this.#headerSeen = true;
      return;
    }
    this.#onRecord(record);
  }
}
