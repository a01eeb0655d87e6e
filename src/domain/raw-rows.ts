// Rows of the report as JSON.parse returned them, with a way back to the text each was parsed
// from. JSON.parse is lossy in two ways the export must not pass on: it rounds a number it cannot
// hold (a 2^53+1 id becomes 2^53) and it decodes bytes that are not UTF-8 as U+FFFD. So a rejected
// row keeps its original text (rejected.csv's raw_json), and a row's numbers and bytes can be
// checked against that text. The text is kept per batch (the string JSON.parse got) until the
// batch has been validated, and split into rows only when a row's text is asked for.

/** The exact texts of a batch of parsed rows. */
export interface RowTexts {
  /**
   * Row `index`'s text as received: its bytes between the array's commas, outer JSON white space
   * trimmed, decoded as UTF-8 (a sequence that is not UTF-8 becomes U+FFFD, as JSON.parse saw it).
   */
  textOf(index: number): string;
  /** False when row `index`'s bytes were not valid UTF-8. */
  isUtf8(index: number): boolean;
  /** True when the bytes of every row are valid UTF-8 (one check of the whole batch). */
  readonly allUtf8: boolean;
  /**
   * The rows have been validated: their batch's text may go now rather than with the rows, which
   * live on through the writes (keeping it cost CPU and memory: docs/performance.md). Reading a text
   * afterwards throws.
   */
  release(): void;
}

/** A batch of raw rows, with their texts when the reader kept them (tests often pass plain arrays). */
export type RawRows = readonly unknown[] & { readonly texts?: RowTexts | undefined };

/** `rows`, now carrying `texts` (not enumerable: the rows still compare and print as a plain array). */
export function withRowTexts(rows: unknown[], texts: RowTexts | undefined): RawRows {
  if (texts !== undefined) Object.defineProperty(rows, 'texts', { value: texts });
  return rows;
}

interface Run {
  /** Index in the built batch of the run's first row. */
  readonly start: number;
  readonly texts: RowTexts;
  /** Index of the run's first row in its source batch. */
  readonly from: number;
}

/** Row texts of a batch built from runs of rows of other batches. */
class JoinedRowTexts implements RowTexts {
  #runs: readonly Run[] | undefined;
  readonly #length: number;
  readonly allUtf8: boolean;

  constructor(runs: readonly Run[], length: number) {
    this.#runs = runs;
    this.#length = length;
    this.allUtf8 = runs.every((run) => run.texts.allUtf8);
  }

  textOf(index: number): string {
    const run = this.#runAt(index);
    return run.texts.textOf(run.from + index - run.start);
  }

  isUtf8(index: number): boolean {
    const run = this.#runAt(index);
    return run.texts.isUtf8(run.from + index - run.start);
  }

  /** Lets go of the source batches' texts (not released here: they may still have rows to come). */
  release(): void {
    this.#runs = undefined;
  }

  #runAt(index: number): Run {
    const runs = this.#runs;
    if (runs === undefined) throw new Error('the texts of this batch were released after it was validated');
    let low = 0;
    let high = runs.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (runs[middle]!.start <= index) low = middle;
      else high = middle - 1;
    }
    const run = runs[low];
    if (run === undefined || index < run.start || index >= this.#length)
      throw new RangeError(`no row ${index} in this batch`);
    return run;
  }
}

/** Builds a batch out of rows of other batches, keeping the way back to each row's text. */
export class RawRowsBuilder {
  #rows: unknown[] = [];
  #runs: Run[] = [];
  /** Rows appended without texts: then the built batch has none (a row without text is not guessed). */
  #untexted = false;

  get length(): number {
    return this.#rows.length;
  }

  /** Appends rows[from..to). */
  append(rows: RawRows, from = 0, to = rows.length): void {
    if (from >= to) return;
    const texts = rows.texts;
    if (texts === undefined) this.#untexted = true;
    else {
      const last = this.#runs.at(-1);
      const continues =
        last !== undefined && last.texts === texts && last.from + (this.#rows.length - last.start) === from;
      if (!continues) this.#runs.push({ start: this.#rows.length, texts, from });
    }
    for (let i = from; i < to; i++) this.#rows.push(rows[i]);
  }

  /** The rows appended so far, as one batch; the builder starts empty again. */
  take(): RawRows {
    const rows = this.#rows;
    const runs = this.#runs;
    const untexted = this.#untexted;
    this.#rows = [];
    this.#runs = [];
    this.#untexted = false;
    if (untexted || runs.length === 0) return rows;
    return withRowTexts(rows, new JoinedRowTexts(runs, rows.length));
  }
}

/** `a` followed by `b`, with the texts of both. */
export function concatRawRows(a: RawRows, b: RawRows): RawRows {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const builder = new RawRowsBuilder();
  builder.append(a);
  builder.append(b);
  return builder.take();
}
