// Rows per second of shifts.csv rendering: csv-stringify (streaming, the baseline and test oracle)
// against CsvTableWriter (cell-text + the hand-written encoder), over the same synthetic
// ShiftRecords. Not part of the test suite (timings are no assertion); run it by hand:
//
//   npx tsc --outDir /tmp/csv-measure --rootDir . --module nodenext --moduleResolution nodenext \
//     --target es2023 --skipLibCheck --types node test/render/csv/measure-csv-throughput.ts
//   ln -sfn "$PWD/node_modules" /tmp/csv-measure/node_modules
//   node /tmp/csv-measure/test/render/csv/measure-csv-throughput.js [rows]

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { SHIFT_COLUMNS } from '../../../src/domain/shift-columns.js';
import type { ShiftRecord } from '../../../src/domain/shift-record.js';
import { cellFormatter } from '../../../src/render/cell-text.js';
import { csvStringifyOptions } from './csv-stringify-options.js';
import { CsvTableWriter } from '../../../src/render/csv/csv-table-writer.js';
import { syntheticShiftRecords } from './synthetic-shift-records.js';

/** A sink that takes everything at once: the time measured is rendering, not I/O. */
function discard(): Writable & { bytes: number } {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      sink.bytes += chunk.length;
      callback();
    },
  }) as Writable & { bytes: number };
  sink.bytes = 0;
  return sink;
}

const options = { delimiter: ',', bom: true } as const;

async function viaCsvStringify(records: readonly ShiftRecord[]): Promise<number> {
  const sink = discard();
  const formatters = SHIFT_COLUMNS.map((c) => cellFormatter(c, { guardFormulas: true }));
  const stringifier = stringify(
    csvStringifyOptions(
      SHIFT_COLUMNS.map((c) => c.name),
      options,
    ),
  );
  stringifier.pipe(sink);
  for (const record of records) {
    const cells = SHIFT_COLUMNS.map((c, i) => (formatters[i] as (v: unknown) => string)(c.value(record)));
    if (!stringifier.write(cells)) await once(stringifier, 'drain');
  }
  stringifier.end();
  await once(sink, 'finish');
  return sink.bytes;
}

async function viaCsvTableWriter(records: readonly ShiftRecord[]): Promise<number> {
  const sink = discard();
  const writer = new CsvTableWriter(SHIFT_COLUMNS, sink, options);
  for (const record of records) {
    const wait = writer.write(record);
    if (wait) await wait;
  }
  return (await writer.end()).bytes;
}

async function viaCsvTableWriterToFile(records: readonly ShiftRecord[]): Promise<number> {
  const path = join(tmpdir(), `measure-csv-${process.pid}.csv`);
  try {
    const writer = new CsvTableWriter(SHIFT_COLUMNS, createWriteStream(path), options);
    for (const record of records) {
      const wait = writer.write(record);
      if (wait) await wait;
    }
    return (await writer.end()).bytes;
  } finally {
    await rm(path, { force: true });
  }
}

async function measure(
  name: string,
  records: readonly ShiftRecord[],
  run: typeof viaCsvTableWriter,
): Promise<void> {
  // CPU time as well as wall time: on a shared 2-core machine the wall clock mostly measures the
  // neighbours. Rendering is single-threaded, so rows per CPU-second is what the code costs.
  const wall: number[] = [];
  const cpu: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 3; i++) {
    const started = process.hrtime.bigint();
    const cpuStarted = process.cpuUsage();
    bytes = await run(records);
    const used = process.cpuUsage(cpuStarted);
    wall.push(records.length / (Number(process.hrtime.bigint() - started) / 1e9));
    cpu.push(records.length / ((used.user + used.system) / 1e6));
  }
  const median = (xs: number[]): string =>
    Math.round(xs.sort((a, b) => a - b)[1] ?? 0)
      .toLocaleString('en')
      .padStart(9);
  console.log(
    `${name.padEnd(15)} ${median(wall)} rows/s wall, ${median(cpu)} rows/CPU-s (medians of 3), ${bytes} bytes`,
  );
}

// The pipeline hands each record over once and drops it, so the heap stays small: cycling a pool
// of distinct records keeps that (200k retained records would make every GC scan ~200 MB).
const rows = Number(process.argv[2] ?? 200_000);
const pool = syntheticShiftRecords(Math.min(rows, 20_000));
const records = Array.from({ length: rows }, (_, i) => pool[i % pool.length] as ShiftRecord);
console.log(
  `${rows} rows from ${pool.length} synthetic ShiftRecords, ${SHIFT_COLUMNS.length} columns, node ${process.version}`,
);
await measure('csv-stringify', records, viaCsvStringify);
await measure('CsvTableWriter', records, viaCsvTableWriter);
await measure('  … to a file', records, viaCsvTableWriterToFile);
