// Rejected rows arrive interleaved with the shifts, but a streaming workbook writes its sheets one
// after another: a second open sheet would sit in memory until the first is done. So rejected rows
// wait in a JSON-lines temp file while the shifts stream, and are read back for the Rejected sheet
// at the end. The file is created on the first rejected row (most exports have none) and removed
// by dispose(), which is safe to call at any time and more than once.

import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RejectedRow } from '../../domain/rejected-row.js';
import { XlsxWriteError } from './xlsx-write-error.js';

type SpooledRow = [id: number | null, reason: string, rawJson: string];

const LINE_SEPARATORS = /[\u2028\u2029]/g;

function parseLine(line: string, lineNumber: number): RejectedRow {
  const value: unknown = JSON.parse(line);
  if (
    Array.isArray(value) &&
    value.length === 3 &&
    (value[0] === null || typeof value[0] === 'number') &&
    typeof value[1] === 'string' &&
    typeof value[2] === 'string'
  ) {
    return { id: value[0] as number | null, reason: value[1], rawJson: value[2] };
  }
  throw new XlsxWriteError(`line ${lineNumber} of the rejected-rows temp file is not a spooled row`);
}

export class RejectedSpool {
  readonly path: string;
  private stream: WriteStream | undefined;
  private error: Error | undefined;
  private rows = 0;

  constructor(directory: string) {
    this.path = join(directory, `shift-export-rejected-${randomUUID()}.jsonl`);
  }

  get count(): number {
    return this.rows;
  }

  /** Spools a row; returns a promise to await when the file is behind, else undefined. */
  add(row: RejectedRow): Promise<void> | undefined {
    if (this.error !== undefined) return Promise.reject(this.error);
    const stream = this.stream ?? this.open();
    const line: SpooledRow = [row.id, row.reason, row.rawJson];
    this.rows++;
    // JSON.stringify escapes CR and LF inside strings; U+2028 and U+2029 it leaves as they are, and
    // Node 24's readline ends lines at them too: escape them, so one row is always one line.
    const json = JSON.stringify(line).replace(LINE_SEPARATORS, (c) =>
      c === '\u2028' ? '\\u2028' : '\\u2029',
    );
    if (stream.write(`${json}\n`)) return undefined;
    return this.drained(stream);
  }

  /** Closes the file and reads the rows back in the order they were added. */
  async *read(): AsyncGenerator<RejectedRow> {
    if (this.error !== undefined) throw this.error;
    const stream = this.stream;
    if (stream === undefined) return;
    if (!stream.writableFinished) {
      stream.end();
      await this.settled(once(stream, 'finish'));
    }
    const lines = createInterface({ input: createReadStream(this.path, 'utf8'), crlfDelay: Infinity });
    let lineNumber = 0;
    try {
      for await (const line of lines) {
        lineNumber++;
        yield parseLine(line, lineNumber);
      }
    } catch (error) {
      if (error instanceof XlsxWriteError) throw error;
      throw new XlsxWriteError(`the rejected-rows temp file ${this.path} could not be read`, error);
    } finally {
      lines.close();
    }
  }

  /** Removes the temp file (if one was created). */
  async dispose(): Promise<void> {
    const stream = this.stream;
    if (stream === undefined) return;
    if (!stream.closed) {
      stream.destroy();
      await once(stream, 'close');
    }
    await rm(this.path, { force: true });
  }

  private open(): WriteStream {
    // 'wx': never write into a file that someone else created under this name.
    const stream = createWriteStream(this.path, { flags: 'wx', encoding: 'utf8' });
    stream.on('error', (error) => {
      this.error ??= new XlsxWriteError(
        `the rejected-rows temp file ${this.path} could not be written`,
        error,
      );
    });
    this.stream = stream;
    return stream;
  }

  /** Until the file takes more, or is closed (after an error, which open() recorded). */
  private drained(stream: WriteStream): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        stream.off('drain', done);
        stream.off('close', done);
        if (this.error === undefined) resolve();
        else reject(this.error);
      };
      stream.on('drain', done);
      stream.on('close', done);
    });
  }

  /** Waits for a stream event; a stream error becomes the spool's error. */
  private async settled(event: Promise<unknown>): Promise<void> {
    try {
      await event;
    } catch (error) {
      this.error ??= new XlsxWriteError(
        `the rejected-rows temp file ${this.path} could not be written`,
        error,
      );
    }
    if (this.error !== undefined) throw this.error;
  }
}
