// The exported shifts of an export split by division, set aside by division while the report is
// read once, and read back one division at a time when its files are written (division-split.ts).
// Every division's records go into one temp file in blocks of ~64 KiB: a division's records are
// collected as JSON lines until its block is full, then appended, and the block's place noted.
// Memory is one block per division being collected, plus the places — never the rows, and never an
// open file or writer per division (200 divisions: ~13 MiB at most, one file descriptor).

import type { ShiftRecord } from '../domain/shift-record.js';
import type { TempFile, TempFolder } from '../temp-file.js';

/** Characters of JSON lines a division collects before its block is appended. */
const BLOCK_CHARACTERS = 64 * 1024;

/** One division's records so far. */
export interface SpooledDivision {
  readonly divisionId: number;
  /** Its exported shifts. */
  shifts: number;
  /** Blocks in the temp file, in the order written: start and length in bytes. */
  readonly blocks: number[];
  /** JSON lines not yet appended, and their characters. */
  lines: string[];
  characters: number;
}

export class DivisionSpool {
  readonly #temp: TempFolder;
  #file: TempFile | undefined;
  readonly #divisions = new Map<number, SpooledDivision>();

  constructor(temp: TempFolder) {
    this.#temp = temp;
  }

  /** Sets the record aside under its division. */
  add(record: ShiftRecord): void {
    const id = record.shift.division_id;
    let division = this.#divisions.get(id);
    if (division === undefined) {
      division = { divisionId: id, shifts: 0, blocks: [], lines: [], characters: 0 };
      this.#divisions.set(id, division);
    }
    // Every value of a record is JSON's own (numbers, texts, booleans, null), so it comes back equal.
    const line = JSON.stringify(record);
    division.lines.push(line);
    division.characters += line.length + 1;
    division.shifts++;
    if (division.characters >= BLOCK_CHARACTERS) this.#append(division);
  }

  /** The divisions with at least one record, by id. */
  divisions(): SpooledDivision[] {
    return [...this.#divisions.values()].sort((a, b) => a.divisionId - b.divisionId);
  }

  /** A division's records in the order added, a block at a time. */
  *read(division: SpooledDivision): Generator<ShiftRecord[]> {
    this.#append(division);
    const file = this.#file;
    if (file === undefined) return;
    let buffer = Buffer.alloc(0);
    for (let i = 0; i < division.blocks.length; i += 2) {
      const start = division.blocks[i] ?? 0;
      const length = division.blocks[i + 1] ?? 0;
      if (buffer.length < length) buffer = Buffer.allocUnsafe(length);
      file.readInto(buffer, length, start);
      const text = buffer.toString('utf8', 0, length);
      const records: ShiftRecord[] = [];
      let from = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', from)) {
        records.push(JSON.parse(text.slice(from, end)) as ShiftRecord);
        from = end + 1;
      }
      yield records;
    }
  }

  #append(division: SpooledDivision): void {
    if (division.lines.length === 0) return;
    const bytes = Buffer.from(`${division.lines.join('\n')}\n`, 'utf8');
    division.lines = [];
    division.characters = 0;
    const file = (this.#file ??= this.#temp.create('division-spool'));
    division.blocks.push(file.bytes, bytes.length);
    file.append(bytes, bytes.length);
  }
}
