// CPU time per row of change tracking's fingerprints, taken from the records (RowHasher over the
// exported columns, then RowFingerprints.add, spilling to TMPDIR) as runExport takes them. Not part
// of the test suite (timings are no assertion); run it by hand:
//
//   npx tsc --outDir /tmp/fp-measure --rootDir . --module nodenext --moduleResolution nodenext \
//     --target es2023 --skipLibCheck --types node test/changes/measure-row-fingerprints.ts
//   ln -sfn "$PWD/node_modules" /tmp/fp-measure/node_modules
//   node /tmp/fp-measure/test/changes/measure-row-fingerprints.js [rows]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RowFingerprints } from '../../src/changes/row-fingerprints.js';
import { RowHasher } from '../../src/changes/row-hash.js';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { syntheticShiftRecords } from '../render/csv/synthetic-shift-records.js';

const rows = Number(process.argv[2] ?? 200_000);
// structuredClone: flat strings, as JSON.parse makes them (the generator's concatenations are
// ropes, whose charCodeAt is several times slower).
const records = syntheticShiftRecords(rows, 3).map((r, i) =>
  structuredClone({ ...r, shift: { ...r.shift, id: i + 1 } }),
);
const hasher = new RowHasher(SHIFT_COLUMNS);
const hash = (r: ShiftRecord, target: Buffer, offset: number): void => hasher.hashInto(r, target, offset);
const dir = mkdtempSync(join(tmpdir(), 'fp-measure-'));
const perRow: number[] = [];
for (let run = 0; run < 7; run++) {
  const fingerprints = new RowFingerprints<ShiftRecord>({ tempDir: dir, hash });
  const start = process.cpuUsage();
  for (const record of records) fingerprints.add(record.shift.id, record);
  const used = process.cpuUsage(start);
  await fingerprints.dispose();
  perRow.push((used.user + used.system) / rows);
}
rmSync(dir, { recursive: true, force: true });
perRow.sort((a, b) => a - b);
console.log(`${rows} rows: ${(perRow[3] as number).toFixed(2)} CPU-µs a row (median of 7)`);
