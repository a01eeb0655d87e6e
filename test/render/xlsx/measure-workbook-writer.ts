// Measures the workbook writer alone: N realistic shifts into a destination that discards the bytes
// (so the numbers are exceljs + our pacing, not a disk), printing rows/s, CPU time, peak RSS and
// size as one JSON line. Not a test; the lead's `npm run bench` owns the end-to-end numbers.
//
//   npx tsc test/render/xlsx/measure-workbook-writer.ts --outDir /tmp/xlsx-measure --rootDir . \
//     --module nodenext --moduleResolution nodenext --target es2023 --esModuleInterop --skipLibCheck
//   ln -sf "$PWD/node_modules" /tmp/xlsx-measure/node_modules
//   node /tmp/xlsx-measure/test/render/xlsx/measure-workbook-writer.js [rows=200000] [zlibLevel=1]

import { Writable } from 'node:stream';
import { ShiftsWorkbookWriter } from '../../../src/render/xlsx/shifts-workbook-writer.js';
import { about, shiftRecord, summaries } from './shift-fixtures.js';

const rows = Number(process.argv[2] ?? 200_000);
const compressionLevel = Number(process.argv[3] ?? 1);

const names = ['Анна Иванова', 'Boris Petrov', 'Chloé Martin', 'Dmitri Sokolov', 'Eva Novak', 'Farid Aliyev'];
const comments = [
  null,
  null,
  null,
  'late bus',
  'Смена продлена, клиент, "VIP"',
  '=1+1',
  'line one\nline two 😀',
];
const offsets = [-720, -300, 0, 60, 180, 330, 345, 540, 840];

let bytes = 0;
const sink = new Writable({
  highWaterMark: 64 * 1024,
  write(chunk: Buffer, _encoding, callback) {
    bytes += chunk.length;
    callback();
  },
});

let peakRss = 0;
const sample = (): void => {
  const rss = process.memoryUsage.rss();
  if (rss > peakRss) peakRss = rss;
};
const sampler = setInterval(sample, 20);

const writer = new ShiftsWorkbookWriter(sink, {
  createdAt: new Date(Date.UTC(2024, 4, 8)),
  creator: 'measure',
  matchRateThreshold: 0.8,
  period: about().period,
  compressionLevel,
});

const cpuStart = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < rows; i++) {
  const offset = offsets[i % offsets.length] ?? 0;
  const noLocation = i % 10 === 0;
  const record = shiftRecord({
    id: 1_000_000 + i,
    user_id: i % 5000,
    user_login: `user${i % 5000}`,
    user_display_name: names[i % names.length] ?? '',
    shop_id: i % 700,
    shop_sap: String(i % 700).padStart(5, '0'),
    start_time: `2024-05-0${1 + (i % 7)}T0${i % 10}:${String(i % 60).padStart(2, '0')}:00`,
    start_time_offset: offset,
    finish_time: `2024-05-0${1 + (i % 7)}T1${i % 10}:${String(i % 60).padStart(2, '0')}:00`,
    finish_time_offset: offset,
    comment: comments[i % comments.length] ?? null,
    start_location_lat: noLocation ? null : 55 + (i % 1000) / 1000,
    start_location_lon: noLocation ? null : 37 + (i % 997) / 1000,
    start_location_distance: noLocation ? null : i % 500,
    start_location_match: noLocation ? null : i % 500 < 400,
  });
  const wait = writer.addShift(record);
  if (wait) await wait;
}
const shiftsDone = performance.now();
await writer.finish(summaries(), about());
const finished = performance.now();
clearInterval(sampler);
sample();
const cpu = process.cpuUsage(cpuStart);

console.log(
  JSON.stringify({
    rows,
    compressionLevel,
    rowsPerSecond: Math.round(rows / ((shiftsDone - started) / 1000)),
    microsecondsPerRow: Number((((shiftsDone - started) * 1000) / rows).toFixed(1)),
    wallSeconds: Number(((finished - started) / 1000).toFixed(2)),
    cpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
    peakRssMb: Math.round(peakRss / 1e6),
    megabytes: Number((bytes / 1e6).toFixed(1)),
    ...writer.stats,
  }),
);
