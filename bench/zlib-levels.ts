// `npm run bench:zlib`: what each zlib level costs and saves on the workbook's largest part, the
// Shifts sheet's XML. Exports N rows (default 100,000) from the sandbox with `shift-export run
// --format xlsx` (or reads a workbook given with --xlsx), takes the sheet XML out of it, and
// deflates it at each level as the workbook's zip does (raw deflate), timing the CPU of each.
// Then, at the workbook's level, one zlib stream (as the archiver deflated a part) against the
// part deflated in blocks at once (parallel-deflate.ts): wall time, CPU and size.
//
//   --rows N       report rows of the export (default 100,000)
//   --xlsx PATH    measure this workbook's largest part instead of exporting one
//   --levels L,..  zlib levels (default 1,2,3,4,5,6)
//   --runs N       runs per level, the median printed (default 3)

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDeflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';
import { DEFAULT_COMPRESSION_LEVEL } from '../src/render/xlsx/exceljs-adapter.js';
import { ParallelDeflateCrc32 } from '../src/render/xlsx/parallel-deflate.js';
import { median } from './bench-lines.js';
import { BIN, sandboxRunArgs, startBenchSandbox } from './child-server.js';
import { entryData, zipEntries } from './zip-entries.js';

const TOKEN = 'sandbox-admin';
const DAYS = 28;
const run = promisify(execFile);

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    xlsx: { type: 'string' },
    levels: { type: 'string', default: '1,2,3,4,5,6' },
    runs: { type: 'string', default: '3' },
  },
});
const rows = Number(values.rows);
const runs = Number(values.runs);
const levels = values.levels.split(',').map(Number);
if (!Number.isInteger(rows) || rows < 1) throw new Error(`--rows must be a positive whole number`);
if (levels.some((l) => !Number.isInteger(l) || l < 0 || l > 9)) throw new Error('--levels must be 0..9');

function findWorkbook(folder: string): string {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) {
      const found = findWorkbook(path);
      if (found !== '') return found;
    } else if (name.endsWith('.xlsx')) return path;
  }
  return '';
}

/** Exports `rows` rows as a workbook from the sandbox; its bytes. */
async function exportWorkbook(): Promise<Buffer> {
  const sandbox = await startBenchSandbox(rows, DAYS);
  const dest = mkdtempSync(join(tmpdir(), 'bench-zlib-'));
  try {
    await run(process.execPath, [BIN, ...sandboxRunArgs(DAYS, 'xlsx', dest)], {
      env: { ...process.env, LOG_LEVEL: 'warn', WFM_BASE_URL: sandbox.url, WFM_TOKEN: TOKEN },
    });
    return readFileSync(findWorkbook(dest));
  } finally {
    rmSync(dest, { recursive: true, force: true });
    await sandbox.stop();
  }
}

const workbook = values.xlsx === undefined ? await exportWorkbook() : readFileSync(values.xlsx);
const entries = zipEntries(workbook);
const sheet = [...entries].sort((a, b) => b.size - a.size)[0];
if (sheet === undefined) throw new Error('the workbook has no entries');
const xml = entryData(sheet);
const sheetRows = (xml.toString('latin1').match(/<row /g) ?? []).length;

interface LevelResult {
  readonly level: number;
  readonly cpuMs: number;
  readonly bytes: number;
}

function deflateOnce(level: number): LevelResult {
  const before = process.cpuUsage();
  const out = deflateRawSync(xml, { level });
  const used = process.cpuUsage(before);
  if (!inflateRawSync(out).equals(xml)) throw new Error(`level ${level} did not round-trip`);
  return { level, cpuMs: (used.user + used.system) / 1000, bytes: out.length };
}

const loadBefore = loadavg()[0] ?? 0;
const results: LevelResult[] = [];
// Level by level in turns, so that a machine whose speed drifts drifts for every level alike.
const perLevel = new Map<number, LevelResult[]>(levels.map((l) => [l, []]));
for (let i = 0; i < runs; i++) for (const level of levels) perLevel.get(level)?.push(deflateOnce(level));
for (const level of levels) {
  const mine = perLevel.get(level) ?? [];
  results.push({ level, cpuMs: median(mine.map((r) => r.cpuMs)), bytes: mine[0]?.bytes ?? 0 });
}

const mb = (n: number): string => (n / 2 ** 20).toFixed(1);
const base = results[0];
console.log(
  `${sheet.name} of a ${rows.toLocaleString('en-US')}-row workbook: ${mb(xml.length)} MB of XML, ${sheetRows.toLocaleString('en-US')} rows; ` +
    `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, load average ${loadBefore.toFixed(2)} → ${(loadavg()[0] ?? 0).toFixed(2)}, medians of ${runs}`,
);
console.log(
  '| level | CPU ms | MB/s of XML | CPU µs/row | compressed MB | of the XML | size vs first | CPU vs first |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results) {
  console.log(
    `| ${r.level} | ${r.cpuMs.toFixed(0)} | ${(xml.length / 2 ** 20 / (r.cpuMs / 1000)).toFixed(0)} | ` +
      `${((1000 * r.cpuMs) / Math.max(1, sheetRows)).toFixed(2)} | ${mb(r.bytes)} | ${((100 * r.bytes) / xml.length).toFixed(1)}% | ` +
      `${base === undefined ? '' : `${((100 * r.bytes) / base.bytes).toFixed(1)}%`} | ` +
      `${base === undefined ? '' : `${(r.cpuMs / base.cpuMs).toFixed(2)}×`} |`,
  );
}

/** `xml` through `deflate` in 64 KiB writes (as the sheet's stream feeds the archive): wall, CPU, bytes out. */
async function streamThrough(
  deflate: NodeJS.ReadWriteStream,
): Promise<{ wallMs: number; cpuMs: number; bytes: number }> {
  const writes = Array.from({ length: Math.ceil(xml.length / 65_536) }, (_, i) =>
    xml.subarray(i * 65_536, (i + 1) * 65_536),
  );
  let bytes = 0;
  const before = process.cpuUsage();
  const started = performance.now();
  await pipeline(
    Readable.from(writes),
    deflate,
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        callback();
      },
    }),
  );
  const used = process.cpuUsage(before);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000, bytes };
}

const level = DEFAULT_COMPRESSION_LEVEL;
const ways: [string, () => NodeJS.ReadWriteStream][] = [
  ['one zlib stream (the archiver before)', () => createDeflateRaw({ level })],
  ['1 MiB blocks, 4 at once (parallel-deflate)', () => new ParallelDeflateCrc32({ level, parallel: 4 })],
];
const timings = new Map<string, { wallMs: number; cpuMs: number; bytes: number }[]>();
for (let i = 0; i < runs; i++)
  for (const [name, make] of ways)
    timings.set(name, [...(timings.get(name) ?? []), await streamThrough(make())]);
console.log('');
console.log(
  `At level ${level}, in 64 KiB writes, medians of ${runs} (the process's CPU: the main thread and libuv's pool):`,
);
console.log('| deflate | wall ms | CPU ms | compressed bytes |');
console.log('| --- | --- | --- | --- |');
for (const [name] of ways) {
  const mine = timings.get(name) ?? [];
  console.log(
    `| ${name} | ${median(mine.map((t) => t.wallMs)).toFixed(0)} | ${median(mine.map((t) => t.cpuMs)).toFixed(0)} | ${(mine[0]?.bytes ?? 0).toLocaleString('en-US')} |`,
  );
}
