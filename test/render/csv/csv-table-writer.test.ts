import { once } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { buffer as readAllBytes } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CellValue, Column, ColumnKind } from '../../../src/domain/column.js';
import { REJECTED_COLUMNS } from '../../../src/domain/rejected-row.js';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import { cellFormatter, CellValueError, type CellFormat } from '../../../src/render/cell-text.js';
import { csvStringifyOptions } from './csv-stringify-options.js';
import {
  CSV_CHUNK_BYTES,
  CsvRecordEncoder,
  CsvSinkError,
  CsvTableWriter,
  type CsvTableOptions,
} from '../../../src/render/csv/csv-table-writer.js';
import { nastyTextWithLoneSurrogates } from './nasty-text.js';
import { syntheticShiftRecords } from './synthetic-shift-records.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** One cell's text as the CSV writers format it (with the formula guard). */
const csvCellText = (format: CellFormat, value: CellValue): string =>
  cellFormatter(format, { guardFormulas: true })(value);

/** Writes all rows (awaiting drains) into a PassThrough and returns the bytes and the result. */
async function render<R>(
  columns: readonly Column<R>[],
  rows: Iterable<R>,
  options: CsvTableOptions,
): Promise<{ bytes: Buffer; result: { rows: number; bytes: number } }> {
  const sink = new PassThrough();
  const bytes = readAllBytes(sink);
  const writer = new CsvTableWriter(columns, sink, options);
  for (const row of rows) {
    const wait = writer.write(row);
    if (wait) await wait;
  }
  const result = await writer.end();
  return { bytes: await bytes, result };
}

/** The oracle: csv-stringify in streaming mode over the cells formatted by cell-text. */
async function renderWithCsvStringify<R>(
  columns: readonly Column<R>[],
  rows: Iterable<R>,
  options: CsvTableOptions,
): Promise<Buffer> {
  const stringifier = stringify(
    csvStringifyOptions(
      columns.map((c) => c.name),
      options,
    ),
  );
  const bytes = readAllBytes(stringifier);
  for (const row of rows) {
    if (!stringifier.write(columns.map((c) => csvCellText(c, c.value(row)))))
      await once(stringifier, 'drain');
  }
  stringifier.end();
  return bytes;
}

type AnyRow = readonly CellValue[];

/** One column per kind, reading its value from the row's index. */
function columnsOf(kinds: readonly ColumnKind[]): Column<AnyRow>[] {
  return kinds.map((kind, i) => ({
    name: `c${i}_${kind}`,
    header: kind,
    kind,
    places: 2,
    width: 8,
    description: '',
    value: (row) => row[i] ?? null,
  }));
}

const VALUE_OF_KIND: Record<ColumnKind, fc.Arbitrary<CellValue>> = {
  text: nastyTextWithLoneSurrogates,
  integer: fc.integer({ min: -1e6, max: 1e9 }),
  duration: fc.integer({ min: 0, max: 86_400 * 3 }),
  decimal: fc.integer({ min: -1e7, max: 1e7 }).map((n) => n / 100),
  rate: fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10_000),
  number: fc.double({ min: -200, max: 200, noNaN: true }),
  boolean: fc.boolean(),
  date: fc.integer({ min: 0, max: 40_000 }),
  localDateTime: fc.integer({ min: 0, max: 4e9 }),
  utcDateTime: fc.integer({ min: 0, max: 4e9 }),
  offset: fc.integer({ min: -720, max: 840 }),
};

const randomTable = fc
  .array(fc.constantFrom(...(Object.keys(VALUE_OF_KIND) as ColumnKind[])), { minLength: 1, maxLength: 8 })
  .chain((kinds) =>
    fc.record({
      kinds: fc.constant(kinds),
      rows: fc.array(fc.tuple(...kinds.map((k) => fc.option(VALUE_OF_KIND[k]))), { maxLength: 12 }),
      options: fc.record({
        delimiter: fc.constantFrom<CsvTableOptions['delimiter']>(',', ';', '\t'),
        bom: fc.boolean(),
      }),
    }),
  );

describe('CsvTableWriter', () => {
  it('writes records encoded elsewhere (CsvRecordEncoder.records) as the same bytes, in runs of any length, whole or in pieces', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1_000, max: 3_000 }),
        fc
          .array(fc.integer({ min: 1, max: 900 }), { minLength: 1, maxLength: 6 })
          .map((runs) => [...runs, 400]),
        async (count, runs) => {
          const records = syntheticShiftRecords(count);
          const options: CsvTableOptions = { delimiter: ';', bom: true, decimal: ',' };
          const one = await render(SHIFT_COLUMNS, records, options);
          const sink = new PassThrough();
          const bytes = readAllBytes(sink);
          const writer = new CsvTableWriter(SHIFT_COLUMNS, sink, options);
          const encoder = new CsvRecordEncoder(SHIFT_COLUMNS, options);
          // Runs of records, some far above a chunk (64 KiB).
          for (let at = 0, r = 0; at < records.length; r++) {
            const run = records.slice(at, at + (runs[r % runs.length] ?? 1));
            at += run.length;
            const encoded = encoder.records(run);
            // Every other run as pieces (records cut anywhere), as rows worked on export threads come.
            const cut = Math.floor(encoded.length / 3);
            const wait = writer.writeEncoded(
              r % 2 === 0 ? encoded : [encoded.subarray(0, cut), encoded.subarray(cut)],
              run.length,
            );
            encoded.fill(0); // free again once written: the writer must have copied it
            if (wait) await wait;
          }
          const result = await writer.end();
          expect((await bytes).equals(one.bytes)).toBe(true);
          expect(result).toEqual(one.result);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('writes byte for byte what csv-stringify writes, and csv-parse reads back the formatted cells', async () => {
    await fc.assert(
      fc.asyncProperty(randomTable, async ({ kinds, rows, options }) => {
        const columns = columnsOf(kinds);
        const ours = await render(columns, rows, options);
        const theirs = await renderWithCsvStringify(columns, rows, options);
        expect(ours.bytes.equals(theirs)).toBe(true);
        expect(ours.result).toEqual({ rows: rows.length, bytes: theirs.length });
        // UTF-8 has no lone surrogates: they are written (by both) as U+FFFD.
        const asUtf8 = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');
        const cells = rows.map((row) => columns.map((c) => asUtf8(csvCellText(c, c.value(row)))));
        expect(parse(ours.bytes, { bom: true, delimiter: options.delimiter })).toEqual([
          columns.map((c) => c.name),
          ...cells,
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it('writes shifts.csv across many chunks exactly as csv-stringify does', async () => {
    const records = syntheticShiftRecords(1500, 7);
    const options = { delimiter: ',', bom: true } as const;
    const ours = await render(SHIFT_COLUMNS, records, options);
    const theirs = await renderWithCsvStringify(SHIFT_COLUMNS, records, options);
    expect(ours.bytes.length).toBeGreaterThan(CSV_CHUNK_BYTES * 5);
    expect(ours.bytes.equals(theirs)).toBe(true);
    expect(ours.result.rows).toBe(1500);
  });

  it('writes records longer than a chunk, between short ones, exactly as csv-stringify does', async () => {
    const long = (n: number, piece: string): string => piece.repeat(Math.ceil(n / piece.length)).slice(0, n);
    const lengths = [10, 21_000, 10, 40_000, 70_000, 5, 200_000, 3];
    const rows: AnyRow[] = lengths.map((n, i) => [i, long(n, i % 2 ? 'Ж"😀,\r\n' : 'ab;c\t')]);
    const columns = columnsOf(['integer', 'text']);
    for (const options of [
      { delimiter: ',', bom: true },
      { delimiter: '\t', bom: false },
    ] as const) {
      const ours = await render(columns, rows, options);
      const theirs = await renderWithCsvStringify(columns, rows, options);
      expect(ours.bytes.equals(theirs)).toBe(true);
    }
  });

  it('is read back by csv-parse as the formatted cells, with ; and tab as delimiters', async () => {
    const records = syntheticShiftRecords(300, 3);
    const expected = [
      SHIFT_COLUMNS.map((c) => c.name),
      ...records.map((r) => SHIFT_COLUMNS.map((c) => csvCellText(c, c.value(r)))),
    ];
    for (const delimiter of [';', '\t'] as const) {
      const { bytes } = await render(SHIFT_COLUMNS, records, { delimiter, bom: true });
      expect(parse(bytes, { bom: true, delimiter })).toEqual(expected);
    }
  });

  it('writes a decimal comma in every number, decimal and rate column, and nowhere else', async () => {
    const records = syntheticShiftRecords(300, 5);
    const point = parse((await render(SHIFT_COLUMNS, records, { delimiter: ';', bom: false })).bytes, {
      delimiter: ';',
    }) as string[][];
    const comma = parse(
      (await render(SHIFT_COLUMNS, records, { delimiter: ';', bom: false, decimal: ',' })).bytes,
      { delimiter: ';' },
    ) as string[][];
    const fractional = new Set<ColumnKind>(['number', 'decimal', 'rate']);
    let replaced = 0;
    SHIFT_COLUMNS.forEach((column, c) => {
      for (let r = 1; r < point.length; r++) {
        const withPoint = point[r]![c]!;
        const expected = fractional.has(column.kind) ? withPoint.replace('.', ',') : withPoint;
        expect(comma[r]![c], `${column.name} ${withPoint}`).toBe(expected);
        if (expected !== withPoint) replaced++;
      }
    });
    expect(replaced).toBeGreaterThan(300);
  });

  it('starts with a UTF-8 BOM when asked, and with the header when not', async () => {
    const withBom = await render(REJECTED_COLUMNS, [], { delimiter: ',', bom: true });
    const without = await render(REJECTED_COLUMNS, [], { delimiter: ',', bom: false });
    expect(withBom.bytes.subarray(0, 3).equals(BOM)).toBe(true);
    expect(withBom.bytes.subarray(3).toString('utf8')).toBe('shift_id,reason,raw_json\r\n');
    expect(without.bytes.toString('utf8')).toBe('shift_id,reason,raw_json\r\n');
    expect(withBom.result).toEqual({ rows: 0, bytes: withBom.bytes.length });
  });

  it('writes a rejected row with its raw JSON quoted and readable', async () => {
    const raw = '{"id":7,"comment":"a, \\"b\\"\\nc","start_time":"-"}';
    const { bytes } = await render(REJECTED_COLUMNS, [{ id: null, reason: '-id: missing', rawJson: raw }], {
      delimiter: ',',
      bom: false,
    });
    expect(bytes.toString('utf8')).toBe(
      `shift_id,reason,raw_json\r\n,'-id: missing,"${raw.replaceAll('"', '""')}"\r\n`,
    );
    expect(parse(bytes)).toEqual([
      ['shift_id', 'reason', 'raw_json'],
      ['', "'-id: missing", raw],
    ]);
  });

  it('refuses a value that does not fit its column, naming the column', () => {
    const writer = new CsvTableWriter(columnsOf(['integer']), new PassThrough(), {
      delimiter: ',',
      bom: false,
    });
    expect(() => writer.write(['12'])).toThrow(CellValueError);
    expect(() => writer.write(['12'])).toThrow(/c0_integer/);
  });
});

/** A sink that holds every write until the test releases it: backpressure without timers. */
class GatedSink extends Writable {
  readonly chunks: Buffer[] = [];
  #held: (() => void)[] = [];

  constructor() {
    super({ highWaterMark: 1024 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk);
    this.#held.push(() => callback());
  }

  get held(): number {
    return this.#held.length;
  }

  release(): void {
    const held = this.#held;
    this.#held = [];
    for (const done of held) done();
  }
}

const settled = async (promise: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> =>
  Promise.race([
    promise.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    // setImmediate runs after pending I/O callbacks and nextTicks: a 'drain' that is due has fired.
    new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending'))),
  ]);

/** Writes synthetic shifts until the writer asks to wait; returns the promise and the rows written. */
function fillUntilWait(writer: CsvTableWriter<ReturnType<typeof syntheticShiftRecords>[number]>): {
  wait: Promise<void>;
  written: number;
} {
  const records = syntheticShiftRecords(2000, 5);
  for (let i = 0; i < records.length; i++) {
    const wait = writer.write(records[i] as (typeof records)[number]);
    if (wait) return { wait, written: i + 1 };
  }
  throw new Error('the writer never asked to wait');
}

describe('CsvTableWriter backpressure', () => {
  it('asks nothing of the caller until a chunk of ~64 KiB is ready', () => {
    const sink = new GatedSink();
    const writer = new CsvTableWriter(SHIFT_COLUMNS, sink, { delimiter: ',', bom: true });
    const { written } = fillUntilWait(writer);
    expect(written).toBeGreaterThan(50);
    expect(sink.chunks).toHaveLength(1);
    expect(sink.chunks[0]?.length).toBeGreaterThanOrEqual(CSV_CHUNK_BYTES);
    expect(sink.chunks[0]?.length).toBeLessThan(CSV_CHUNK_BYTES * 2);
  });

  it('waits while the sink is full and goes on once it drains', async () => {
    const sink = new GatedSink();
    const writer = new CsvTableWriter(SHIFT_COLUMNS, sink, { delimiter: ',', bom: true });
    const { wait } = fillUntilWait(writer);
    expect(await settled(wait)).toBe('pending');
    expect(sink.held).toBe(1);
    sink.release();
    expect(await settled(wait)).toBe('resolved');
  });

  it('gives the same promise to a caller that writes on without waiting', async () => {
    const sink = new GatedSink();
    const writer = new CsvTableWriter(SHIFT_COLUMNS, sink, { delimiter: ',', bom: true });
    const { wait } = fillUntilWait(writer);
    const [record] = syntheticShiftRecords(1, 9);
    expect(writer.write(record as NonNullable<typeof record>)).toBe(wait);
    sink.release();
    await wait;
  });

  it('rejects the wait when the sink fails, and refuses further rows', async () => {
    const sink = new GatedSink();
    const writer = new CsvTableWriter(SHIFT_COLUMNS, sink, { delimiter: ',', bom: true });
    const { wait } = fillUntilWait(writer);
    sink.destroy(new Error('ENOSPC: no space left on device'));
    await expect(wait).rejects.toThrow(CsvSinkError);
    await expect(wait).rejects.toMatchObject({ code: 'CSV_SINK_FAILED', retryable: true });
    await expect(wait).rejects.toThrow(/ENOSPC/);
    const [record] = syntheticShiftRecords(1);
    expect(() => writer.write(record as NonNullable<typeof record>)).toThrow(/ENOSPC/);
    await expect(writer.end()).rejects.toThrow(/ENOSPC/);
  });

  it('rejects the wait when the sink closes before the table is complete', async () => {
    const sink = new GatedSink();
    const writer = new CsvTableWriter(SHIFT_COLUMNS, sink, { delimiter: ',', bom: true });
    const { wait } = fillUntilWait(writer);
    sink.destroy();
    await expect(wait).rejects.toThrow(/closed before the table was complete/);
  });

  it('ends by writing the rest and resolving once the sink has finished', async () => {
    const sink = new GatedSink();
    const writer = new CsvTableWriter(SHIFT_COLUMNS, sink, { delimiter: ',', bom: false });
    const { wait, written } = fillUntilWait(writer);
    sink.release();
    await wait;
    const more = syntheticShiftRecords(5, 11);
    for (const record of more) expect(writer.write(record)).toBeUndefined();
    const ended = writer.end();
    expect(await settled(ended)).toBe('pending');
    sink.release();
    const result = await ended;
    const total = Buffer.concat(sink.chunks);
    expect(result).toEqual({ rows: written + 5, bytes: total.length });
    expect(parse(total)).toHaveLength(written + 5 + 1);
  });

  it('rejects end() when the sink fails while finishing', async () => {
    const sink = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('upload aborted'));
      },
    });
    const writer = new CsvTableWriter(REJECTED_COLUMNS, sink, { delimiter: ',', bom: true });
    await expect(writer.end()).rejects.toThrow(/upload aborted/);
  });
});
