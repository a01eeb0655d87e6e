// The Writable a streaming table writer (CSV, Parquet) feeds, with what both need around it: the
// bytes counted, the first failure remembered (so the next call reports it, and an 'error' with no
// listener does not crash the process), one shared wait for 'drain' that also rejects when the
// sink fails or closes, and an end that resolves once the sink has finished.

import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

export interface TableSinkWords {
  /** What the sink is, in messages: `the CSV output`. */
  readonly output: string;
  /** What it was to hold: `the table`. */
  readonly whole: string;
  /** The typed error of the writer (CSV_SINK_FAILED, PARQUET_SINK_FAILED). */
  readonly error: (message: string, cause?: unknown) => Error;
}

export class TableSink {
  readonly #sink: Writable;
  readonly #words: TableSinkWords;
  #bytes = 0;
  #drain: Promise<void> | undefined;
  #failure: Error | undefined;

  constructor(sink: Writable, words: TableSinkWords) {
    this.#sink = sink;
    this.#words = words;
    sink.on('error', (error: Error) => {
      this.#failure ??= words.error(`${words.output} failed: ${error.message}`, error);
    });
  }

  /** Bytes handed to the sink so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The wait for 'drain' already pending, if any (a caller that writes on gets it again). */
  get pendingDrain(): Promise<void> | undefined {
    return this.#drain;
  }

  /** Throws the remembered failure, or that the sink was destroyed before the whole was written. */
  throwIfBroken(): void {
    if (this.#failure) throw this.#failure;
    if (this.#sink.destroyed) throw this.#closedEarly();
  }

  /** Writes `bytes`; false when the sink asks us to wait for 'drain'. */
  send(bytes: Buffer): boolean {
    this.throwIfBroken();
    this.#bytes += bytes.length;
    return this.#sink.write(bytes);
  }

  /** The one pending wait for 'drain'. */
  waitForDrain(): Promise<void> {
    this.#drain ??= this.#drainOrFailure();
    return this.#drain;
  }

  /** Ends the sink and resolves once it has finished. */
  async end(): Promise<void> {
    this.#sink.end();
    try {
      await finished(this.#sink, { readable: false });
    } catch (error) {
      throw this.#failure ?? this.#words.error(`${this.#words.output} closed before it finished`, error);
    }
  }

  #closedEarly(): Error {
    return this.#words.error(`${this.#words.output} was closed before ${this.#words.whole} was complete`);
  }

  #drainOrFailure(): Promise<void> {
    const sink = this.#sink;
    return new Promise<void>((resolve, reject) => {
      const settle = (error?: Error): void => {
        sink.off('drain', onDrain);
        sink.off('error', onError);
        sink.off('close', onClose);
        this.#drain = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onDrain = (): void => settle();
      const onError = (error: Error): void =>
        settle(this.#failure ?? this.#words.error(`${this.#words.output} failed: ${error.message}`, error));
      const onClose = (): void => settle(this.#failure ?? this.#closedEarly());
      sink.on('drain', onDrain);
      sink.on('error', onError);
      sink.on('close', onClose);
    });
  }
}
