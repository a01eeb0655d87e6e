// A run of rows' Parquet values as typed arrays, so that the thread that worked the rows converts
// them (parquet-columns.ts) and the file's writer only gathers them (ParquetTableWriter.writeCells).
// The values are exactly what the converters return, so a file written from cells is the same
// bytes as one written from records.
//
// Column-major: column c of row k is at c * rows + k in its array, so that the rows first..end-1
// of a column lie one after another. Per physical type:
//   INT32, DOUBLE, BOOLEAN   `numbers` (a boolean as 0 or 1)
//   INT64                    `ints`
//   BYTE_ARRAY               `textIndexes`: which of the run's distinct texts, held in UTF-8 one
//                            after another in `text`, text i ending at `textEnds[i]`
// and `nulls` says 1 where a value is null, whatever the type. A text is sent once a cut however
// many rows repeat it (names, logins, statuses), so the writer's thread decodes each once a cut.

import type { CellValue, Column } from '../../domain/column.js';
import { parquetColumn, type ParquetValue } from './parquet-columns.js';

export interface ParquetCells {
  readonly rows: number;
  readonly numbers: Float64Array;
  readonly ints: BigInt64Array;
  readonly nulls: Uint8Array;
  readonly textIndexes: Int32Array;
  readonly text: Uint8Array;
  readonly textEnds: Int32Array;
}

/** How many of each array the cells of `rows` rows take: `textBytes` is known once they are encoded. */
export interface ParquetCellsSize {
  readonly rows: number;
  readonly numbers: number;
  readonly ints: number;
  readonly nulls: number;
  readonly textIndexes: number;
  readonly textEnds: number;
  readonly textBytes: number;
}

const NUMBER = 0;
const INT = 1;
const TEXT = 2;
const BOOLEAN = 3;
type Store = typeof NUMBER | typeof INT | typeof TEXT | typeof BOOLEAN;

/** Which array each column is stored in, and its index among that array's columns. */
interface Layout {
  readonly stores: readonly Store[];
  readonly slots: readonly number[];
  readonly numbers: number;
  readonly ints: number;
  readonly texts: number;
}

function layoutOf(columns: readonly Pick<Column<never>, 'name' | 'kind' | 'places'>[]): Layout {
  const stores: Store[] = [];
  const slots: number[] = [];
  const counts = [0, 0, 0];
  for (const column of columns) {
    const type = parquetColumn(column).element.type;
    const store: Store =
      type === 'INT64' ? INT : type === 'BYTE_ARRAY' ? TEXT : type === 'BOOLEAN' ? BOOLEAN : NUMBER;
    const array = store === BOOLEAN ? NUMBER : store;
    stores.push(store);
    slots.push((counts[array] as number)++);
  }
  return {
    stores,
    slots,
    numbers: counts[NUMBER] as number,
    ints: counts[INT] as number,
    texts: counts[TEXT] as number,
  };
}

/** Converts rows into cells on the thread that works them; one per thread, its scratch reused. */
export class ParquetCellEncoder<R> {
  readonly #values: readonly ((row: R) => CellValue)[];
  readonly #converters: readonly ((value: CellValue) => ParquetValue)[];
  readonly #layout: Layout;
  #numbers = new Float64Array(0);
  #ints = new BigInt64Array(0);
  #nulls = new Uint8Array(0);
  #textIndexes = new Int32Array(0);
  #textEnds = new Int32Array(1024);
  readonly #distinct = new Map<string, number>();
  #text = Buffer.allocUnsafe(1 << 16);
  #rows = 0;
  #textBytes = 0;

  constructor(columns: readonly Column<R>[]) {
    this.#values = columns.map((c) => c.value);
    this.#converters = columns.map((c) => parquetColumn(c).convert);
    this.#layout = layoutOf(columns);
  }

  /** Converts the rows into the encoder's scratch; copyInto() then puts them where they go. */
  encodeAll(rows: readonly R[]): ParquetCellsSize {
    const n = rows.length;
    const layout = this.#layout;
    const size = sizeOf(layout, n, 0, 0);
    if (this.#numbers.length < size.numbers) this.#numbers = new Float64Array(size.numbers * 2);
    if (this.#ints.length < size.ints) this.#ints = new BigInt64Array(size.ints * 2);
    if (this.#nulls.length < size.nulls) this.#nulls = new Uint8Array(size.nulls * 2);
    if (this.#textIndexes.length < size.textIndexes) this.#textIndexes = new Int32Array(size.textIndexes * 2);
    const distinct = this.#distinct;
    distinct.clear();
    const numbers = this.#numbers;
    const ints = this.#ints;
    const nulls = this.#nulls;
    const textIndexes = this.#textIndexes;
    let textBytes = 0;
    const columns = this.#values.length;
    for (let c = 0; c < columns; c++) {
      const value = this.#values[c] as (row: R) => CellValue;
      const convert = this.#converters[c] as (value: CellValue) => ParquetValue;
      const store = layout.stores[c] as Store;
      const at = (layout.slots[c] as number) * n;
      const nullAt = c * n;
      for (let k = 0; k < n; k++) {
        const v = convert(value(rows[k] as R));
        nulls[nullAt + k] = v === null ? 1 : 0;
        if (store === TEXT) {
          if (v === null) {
            textIndexes[at + k] = -1;
            continue;
          }
          const text = v as string;
          let index = distinct.get(text);
          if (index === undefined) {
            index = distinct.size;
            distinct.set(text, index);
            // A UTF-8 character takes at most 3 bytes per UTF-16 unit.
            if (this.#text.length < textBytes + text.length * 3) this.#grow(textBytes + text.length * 3);
            textBytes += this.#text.write(text, textBytes, 'utf8');
            if (this.#textEnds.length <= index) this.#growEnds();
            this.#textEnds[index] = textBytes;
          }
          textIndexes[at + k] = index;
        } else if (store === INT) ints[at + k] = v === null ? 0n : (v as bigint);
        else if (store === BOOLEAN) numbers[at + k] = v === true ? 1 : 0;
        else numbers[at + k] = v === null ? 0 : (v as number);
      }
    }
    this.#rows = n;
    this.#textBytes = textBytes;
    return sizeOf(layout, n, distinct.size, textBytes);
  }

  /** Copies the cells last encoded into `target`, which has the size encodeAll() returned. */
  copyInto(target: ParquetCells): void {
    const size = sizeOf(this.#layout, this.#rows, this.#distinct.size, this.#textBytes);
    target.numbers.set(this.#numbers.subarray(0, size.numbers));
    target.ints.set(this.#ints.subarray(0, size.ints));
    target.nulls.set(this.#nulls.subarray(0, size.nulls));
    target.textIndexes.set(this.#textIndexes.subarray(0, size.textIndexes));
    target.textEnds.set(this.#textEnds.subarray(0, size.textEnds));
    target.text.set(this.#text.subarray(0, size.textBytes));
  }

  #growEnds(): void {
    const grown = new Int32Array(this.#textEnds.length * 2);
    grown.set(this.#textEnds);
    this.#textEnds = grown;
  }

  #grow(bytes: number): void {
    const grown = Buffer.allocUnsafe(Math.max(bytes, this.#text.length * 2));
    this.#text.copy(grown);
    this.#text = grown;
  }
}

function sizeOf(layout: Layout, rows: number, texts: number, textBytes: number): ParquetCellsSize {
  return {
    rows,
    numbers: layout.numbers * rows,
    ints: layout.ints * rows,
    nulls: layout.stores.length * rows,
    textIndexes: layout.texts * rows,
    textEnds: texts,
    textBytes,
  };
}

/** Reads cells back as the values the converters returned, column by column. */
export class ParquetCellReader {
  readonly #layout: Layout;
  /** The texts of the cells last read: every column of a run reads them, and often the next run too. */
  #cells: ParquetCells | undefined;
  #texts: readonly string[] = [];

  constructor(columns: readonly Pick<Column<never>, 'name' | 'kind' | 'places'>[]) {
    this.#layout = layoutOf(columns);
  }

  #decoded(cells: ParquetCells): readonly string[] {
    if (this.#cells !== cells) {
      this.#texts = decode(cells);
      this.#cells = cells;
    }
    return this.#texts;
  }

  /** Appends column c of rows first..end-1 of `cells` to `into`. */
  push(cells: ParquetCells, c: number, first: number, end: number, into: ParquetValue[]): void {
    const n = cells.rows;
    const store = this.#layout.stores[c] as Store;
    const at = (this.#layout.slots[c] as number) * n;
    const nullAt = c * n;
    const nulls = cells.nulls;
    if (store === TEXT) {
      const texts = this.#decoded(cells);
      const indexes = cells.textIndexes;
      for (let k = first; k < end; k++)
        into.push(nulls[nullAt + k] === 1 ? null : (texts[indexes[at + k] as number] as string));
    } else if (store === INT) {
      const ints = cells.ints;
      for (let k = first; k < end; k++) into.push(nulls[nullAt + k] === 1 ? null : (ints[at + k] as bigint));
    } else if (store === BOOLEAN) {
      const numbers = cells.numbers;
      for (let k = first; k < end; k++) into.push(nulls[nullAt + k] === 1 ? null : numbers[at + k] === 1);
    } else {
      const numbers = cells.numbers;
      for (let k = first; k < end; k++)
        into.push(nulls[nullAt + k] === 1 ? null : (numbers[at + k] as number));
    }
  }
}

function decode(cells: ParquetCells): string[] {
  const text = asBuffer(cells.text);
  const ends = cells.textEnds;
  const texts: string[] = new Array<string>(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    texts[i] = text.toString('utf8', start, ends[i] as number);
    start = ends[i] as number;
  }
  return texts;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
