// The cuts of one answer on their way through a parser, in report order: up to `depth` are parsed
// at once (on this thread, or on parse threads), and each comes back in the order it was cut. A
// guessed cut that does not parse sends the scanner back to it (JsonArrayScanner.rewind): the cuts
// after it are dropped, whatever their parse gave, and the bytes are cut again.

import type { JsonArrayScanner } from './json-array-scanner.js';
import { JsonArrayScanError } from './json-array-scan-error.js';
import type { ScannedCut } from './scanned-cut.js';

/** One parsed cut: what the parser made of it, and its rows' ids for the resume position. */
export interface ParsedCut<B> {
  readonly batch: B;
  /** Each row's id when it is readable (a safe integer), else NaN; one per row, in order. */
  readonly ids: ArrayLike<number>;
  /**
   * The cut's bytes when the parser moved its buffer away (to another thread) and back: the
   * scanner takes these for the next cut, the cut's own view being empty then.
   */
  readonly bytes?: Buffer;
}

export interface CutParser<B> {
  /** Cuts parsed at once at most; 1: each is parsed before the next one is taken. */
  readonly depth: number;
  /** Parses a cut; a cut that is not JSON fails with a 'malformed' JsonArrayScanError. */
  parse(cut: ScannedCut): ParsedCut<B> | Promise<ParsedCut<B>>;
}

/** Runs a scanner step, turning its errors into the reader's. */
export type ScanStep = <T>(step: () => T) => T;

interface InFlight<B> {
  readonly cut: ScannedCut;
  readonly parsed: Promise<ParsedCut<B>>;
}

export class ParsedCuts<B> {
  readonly #parser: CutParser<B>;
  readonly #scanner: JsonArrayScanner;
  readonly #step: ScanStep;
  /** Cut, not given to the parser yet. */
  #waiting: ScannedCut[] = [];
  #inFlight: InFlight<B>[] = [];

  constructor(parser: CutParser<B>, scanner: JsonArrayScanner, step: ScanStep) {
    this.#parser = parser;
    this.#scanner = scanner;
    this.#step = step;
  }

  add(cuts: readonly ScannedCut[]): void {
    for (const cut of cuts) this.#waiting.push(cut);
  }

  /**
   * The next parsed cut in order, once one is due: with `all`, until every cut is parsed; else
   * while cuts wait for the parser, the parser is full, or the scanner holds back an error until
   * its guesses are parsed. Undefined when none is due.
   */
  async next(all: boolean): Promise<ParsedCut<B> | undefined> {
    for (;;) {
      this.#fill();
      const head = this.#inFlight[0];
      if (head === undefined) return undefined;
      const due =
        all ||
        this.#waiting.length > 0 ||
        this.#inFlight.length >= this.#parser.depth ||
        this.#scanner.blocked;
      if (!due) return undefined;
      this.#inFlight.shift();
      let parsed: ParsedCut<B>;
      try {
        parsed = await head.parsed;
      } catch (error) {
        const wrongGuess =
          head.cut.guessed && error instanceof JsonArrayScanError && error.kind === 'malformed';
        if (!wrongGuess)
          return this.#step(() => {
            throw error;
          });
        this.#waiting = this.#step(() => this.#scanner.rewind(head.cut));
        this.#inFlight = [];
        continue;
      }
      this.#step(() => this.#scanner.confirm(head.cut));
      this.#scanner.recycle(parsed.bytes ?? head.cut.bytes);
      return parsed;
    }
  }

  #fill(): void {
    while (this.#inFlight.length < this.#parser.depth && this.#waiting.length > 0) {
      const cut = this.#waiting.shift() as ScannedCut;
      const parsed = (async () => this.#parser.parse(cut))();
      // Awaited in turn by next(); until then (or when a rewind drops it) a failure is not unhandled.
      parsed.catch(() => undefined);
      this.#inFlight.push({ cut, parsed });
    }
  }
}
