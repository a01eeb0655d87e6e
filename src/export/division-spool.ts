// The exported shifts of an export split by division, set aside by division while the report is
// read once, and read back one division at a time when its files are written (division-split.ts).
// Every division's records go into one temp file in blocks of 60 KiB: a division's records are
// collected as UTF-8 JSON lines until its block is full, then appended, and the block's place
// noted. Memory is one block per division being collected, plus the places — never the rows, and
// never an open file or writer per division (200 divisions: ~13 MiB at most, one file descriptor).
//
// A record's line is rendered where the record is made: on the export threads that parse the
// report (cut-work.ts, which hands over the exported rows' lines as bytes), or here.

import type { FinishedShift } from 'wfm-contract/finished-shift';
import { validShift, type ShiftRecord } from '../domain/shift-record.js';
import { enrichShift, type DivisionDirectory } from '../pipeline/enrich.js';
import { localiseShift } from '../pipeline/localise.js';
import type { TempFile, TempFolder } from '../temp-file.js';
import { MAX_CUT_TEXT_BYTES } from '../wfm/scanned-cut.js';

/**
 * Bytes of JSON lines a division collects before its block is appended: a block is what a thread
 * decodes at once (division-split.ts), so no larger than the text of a report's cut.
 */
const BLOCK_BYTES = MAX_CUT_TEXT_BYTES;

/**
 * A record as the spool keeps it, without its line break: a JSON array of its values in a fixed
 * order (recordOfValues), not the record's JSON. The keys were half of a line's bytes, and each
 * line is stringified, encoded, written, read, decoded and parsed once more than a row of an
 * export that is not split (2026-11-29 profile of a split over 10 divisions: JSON.stringify and
 * UTF-8 ~8% of an export thread, JSON.parse ~10%). Every value of a record is JSON's own (numbers,
 * texts, booleans, null), so it comes back equal; JSON.stringify escapes lone surrogates, so the
 * line survives UTF-8 unchanged. What the localise and enrich stages derive is left out and derived
 * again when the line is read: the local times, business date and location status from the row's
 * own values, the division's external id and managers (~100 bytes a line) from the directory.
 */
export function spoolLine(record: ShiftRecord): string {
  const s = record.shift;
  return JSON.stringify([
    s.id,
    s.user_id,
    s.user_login,
    s.user_org_level,
    s.user_position,
    s.user_display_name,
    s.division_id,
    s.division_name,
    s.region_id,
    s.region_name,
    s.shop_id,
    s.shop_sap,
    s.shop_locality,
    s.shop_address,
    s.start_time,
    s.start_time_offset,
    s.finish_time,
    s.finish_time_offset,
    s.duration,
    s.comment,
    s.start_location_lat,
    s.start_location_lon,
    s.start_location_distance,
    s.start_location_match,
    s.finish_location_lat,
    s.finish_location_lon,
    s.finish_location_distance,
    s.finish_location_match,
    s.auto_finished,
    record.startUtc,
    record.finishUtc,
    record.qualityFlags,
  ]);
}

/**
 * The record of a spool line's values (spoolLine's order), made as the export makes its records:
 * the shift in checkFieldTypes' shape, then validShift, localiseShift and enrichShift with the
 * directory the records were enriched from (its flag of replaced text is already in the line's flags).
 */
function recordOfValues(v: readonly unknown[], directory: DivisionDirectory): ShiftRecord {
  const shift: FinishedShift = {
    id: v[0] as number,
    user_id: v[1] as number,
    user_login: v[2] as string,
    user_org_level: v[3] as FinishedShift['user_org_level'],
    user_position: v[4] as string | null,
    user_display_name: v[5] as string,
    division_id: v[6] as number,
    division_name: v[7] as string,
    region_id: v[8] as number,
    region_name: v[9] as string,
    shop_id: v[10] as number,
    shop_sap: v[11] as string,
    shop_locality: v[12] as string | null,
    shop_address: v[13] as string | null,
    start_time: v[14] as string,
    start_time_offset: v[15] as number,
    finish_time: v[16] as string,
    finish_time_offset: v[17] as number,
    duration: v[18] as number,
    comment: v[19] as string | null,
    start_location_lat: v[20] as number | null,
    start_location_lon: v[21] as number | null,
    start_location_distance: v[22] as number | null,
    start_location_match: v[23] as boolean | null,
    finish_location_lat: v[24] as number | null,
    finish_location_lon: v[25] as number | null,
    finish_location_distance: v[26] as number | null,
    finish_location_match: v[27] as boolean | null,
    auto_finished: v[28] as boolean,
  };
  const valid = validShift(shift, v[29] as number, v[30] as number, v[31] as string);
  return enrichShift(localiseShift(valid), directory);
}

/**
 * The records of spool lines, each followed by its line break: spoolLine's inverse, with the
 * division directory the records were enriched from.
 */
export function spoolRecords(lines: string, directory: DivisionDirectory): ShiftRecord[] {
  const records: ShiftRecord[] = [];
  let from = 0;
  for (let end = lines.indexOf('\n'); end >= 0; end = lines.indexOf('\n', from)) {
    records.push(recordOfValues(JSON.parse(lines.slice(from, end)) as unknown[], directory));
    from = end + 1;
  }
  return records;
}

/** Scratch bytes kept between cuts up to this size; a larger one, grown for huge lines, is let go. */
const MAX_SCRATCH_BYTES = 4 * 1024 * 1024;

/** Renders records' spool lines into bytes, each followed by a line break. */
export class SpoolLineEncoder {
  #scratch: Buffer | undefined;

  /**
   * The lines of `records` one after another, `ends[k]` where line k ends; in the encoder's own
   * scratch buffer, valid until its next use (cut-work.ts copies them into a cut's buffer).
   */
  encodeAll(records: readonly ShiftRecord[], ends: Int32Array): Buffer {
    let bytes = this.#scratch ?? Buffer.allocUnsafeSlow(BLOCK_BYTES);
    let used = 0;
    for (let k = 0; k < records.length; k++) {
      const line = `${spoolLine(records[k] as ShiftRecord)}\n`;
      // UTF-8 takes at most 3 bytes a UTF-16 unit.
      if (used + line.length * 3 > bytes.length) {
        const larger = Buffer.allocUnsafeSlow(Math.max(bytes.length * 2, used + line.length * 3));
        bytes.copy(larger, 0, 0, used);
        bytes = larger;
      }
      used += bytes.write(line, used, 'utf8');
      ends[k] = used;
    }
    this.#scratch = bytes.length <= MAX_SCRATCH_BYTES ? bytes : undefined;
    return bytes.subarray(0, used);
  }
}

/** One division's records so far. */
export interface SpooledDivision {
  readonly divisionId: number;
  /** Its exported shifts. */
  shifts: number;
  /** Blocks in the temp file, in the order written: start and length in bytes. */
  readonly blocks: number[];
  /** Lines not yet appended, each ending in a line break, and how many bytes of it are used. */
  block: Buffer;
  used: number;
}

export class DivisionSpool {
  readonly #directory: DivisionDirectory;
  readonly #temp: TempFolder;
  #file: TempFile | undefined;
  readonly #divisions = new Map<number, SpooledDivision>();

  /** Spools into `temp`; records read back take their division's metadata from `directory`. */
  constructor(temp: TempFolder, directory: DivisionDirectory) {
    this.#temp = temp;
    this.#directory = directory;
  }

  /** Sets the record aside under its division. */
  add(record: ShiftRecord): void {
    const line = Buffer.from(`${spoolLine(record)}\n`, 'utf8');
    this.#addLine(record.shift.division_id, line, 0, line.length);
  }

  /**
   * Sets rendered lines aside (spoolLine's, each followed by a line break): line k is
   * `lines[ends[k-1] .. ends[k]]` (from 0 for the first) and goes under `divisionIds[k]`.
   */
  addLines(lines: Uint8Array, ends: Int32Array, divisionIds: Float64Array): void {
    let start = 0;
    for (let k = 0; k < ends.length; k++) {
      const end = ends[k] as number;
      this.#addLine(divisionIds[k] as number, lines, start, end);
      start = end;
    }
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
      yield spoolRecords(buffer.toString('utf8', 0, length), this.#directory);
    }
  }

  /**
   * A division's lines in runs of whole blocks (a block holds whole lines) of at most `bytes`
   * each, or one block when a block alone is larger, in the order added: for each run, the index
   * of its first block and of the block after its last. The division's last lines are appended
   * first.
   */
  runs(division: SpooledDivision, bytes: number): { readonly first: number; readonly end: number }[] {
    this.#append(division);
    const runs: { first: number; end: number }[] = [];
    const count = division.blocks.length / 2;
    let first = 0;
    let size = 0;
    for (let b = 0; b < count; b++) {
      const length = division.blocks[b * 2 + 1] ?? 0;
      if (b > first && size + length > bytes) {
        runs.push({ first, end: b });
        first = b;
        size = 0;
      }
      size += length;
    }
    if (count > first) runs.push({ first, end: count });
    return runs;
  }

  /** A run of a division's blocks, read into one buffer of its own (it can move to an export thread). */
  readRun(
    division: SpooledDivision,
    { first, end }: { readonly first: number; readonly end: number },
  ): Buffer {
    const file = this.#file;
    let size = 0;
    for (let b = first; b < end; b++) size += division.blocks[b * 2 + 1] ?? 0;
    // Not from Node's shared pool: the buffer is moved to an export thread.
    const run = Buffer.allocUnsafeSlow(size);
    let at = 0;
    for (let b = first; b < end; b++) {
      const length = division.blocks[b * 2 + 1] ?? 0;
      file?.readInto(run.subarray(at), length, division.blocks[b * 2] ?? 0);
      at += length;
    }
    return run;
  }

  /** Copies one line, line break included, into its division's block. */
  #addLine(divisionId: number, bytes: Uint8Array, start: number, end: number): void {
    let division = this.#divisions.get(divisionId);
    if (division === undefined) {
      division = { divisionId, shifts: 0, blocks: [], block: Buffer.allocUnsafe(BLOCK_BYTES), used: 0 };
      this.#divisions.set(divisionId, division);
    }
    const length = end - start;
    if (division.used + length > division.block.length) {
      this.#append(division);
      // A line longer than a block gets a block of its own size.
      if (length > division.block.length) division.block = Buffer.allocUnsafe(length);
    }
    division.block.set(bytes.subarray(start, end), division.used);
    division.used += length;
    division.shifts++;
    if (division.used >= BLOCK_BYTES) this.#append(division);
  }

  #append(division: SpooledDivision): void {
    if (division.used === 0) return;
    const file = (this.#file ??= this.#temp.create('division-spool'));
    division.blocks.push(file.bytes, division.used);
    file.append(division.block, division.used);
    division.used = 0;
    // A block grown for one long line is let go.
    if (division.block.length > BLOCK_BYTES) division.block = Buffer.allocUnsafe(BLOCK_BYTES);
  }
}
