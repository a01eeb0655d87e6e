// node dist/bench/body-scan.js [--rows N] [--rounds N] [--chunk BYTES]: what reading and cutting the
// report body costs the export's own thread, on one thread. A sandbox in a child process (so that
// its CPU is not counted here) serves the report; round after round, three things are timed, each
// on its own:
// - `read (drainReport)`: the report read as the reader reads it (undici, ResponseBody, identity:
//   the request the export sends) and discarded unparsed; its cost a row follows how fast the
//   sandbox writes (a slower writer, smaller socket reads, more of them), so compare it in turns;
// and, over the body downloaded once and fed in `--chunk`-byte chunks (64 KiB, what the socket and
// the decoder hand out; in an export whose reader is busy, the body stream's iterator joins what
// undici buffered, up to 2 MiB, so try `--chunk 2000000` too):
// - `JsonArrayScanner`: pushCuts/endCuts as the report reader calls them, each guessed cut confirmed
//   (whether it parses is checked once, before the rounds, not timed: the export threads parse);
// - `ElementScan.scan alone`: the byte scan over the whole body, as after a wrong guess (the scan
//   path's cost a row, whatever share of the body takes it).
// Times are CPU (process.cpuUsage: this thread plus V8's background threads). Medians of `--rounds` rounds, in
// CPU-µs per row and MB/s of body per CPU-second.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatDay, parseDay } from 'wfm-contract/civil-time';
import { loadWfmConfig, requireUpstream } from '../src/config/wfm-config.js';
import { upstreamWindow, type Period } from '../src/domain/period.js';
import { silentLogger } from '../src/logger.js';
import { ElementScan } from '../src/wfm/element-scan.js';
import { WfmClient } from '../src/wfm/wfm-client.js';
import { SANDBOX_END_DATE, startBenchSandbox } from './child-server.js';
import { median } from './bench-lines.js';
import { cutBody } from './cut-body.js';
import { downloadReport } from './report-file.js';
import { cpuMicros } from './thread-cpu.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '9' },
    chunk: { type: 'string', default: String(64 * 1024) },
  },
});
const ROWS = Number(values.rows);
const ROUNDS = Number(values.rounds);
const CHUNK = Number(values.chunk);
const DAYS = 28;
const lastDay = parseDay(SANDBOX_END_DATE) ?? 0;
const period: Period = { from: formatDay(lastDay - DAYS + 1), to: SANDBOX_END_DATE };

/** The bench sandbox's bearer token (packages/wfm-sandbox). */
const TOKEN = 'sandbox-admin';

async function fetchBody(url: string): Promise<{ body: Buffer; rows: number }> {
  const scratch = mkdtempSync(join(tmpdir(), 'body-scan-'));
  try {
    const file = await downloadReport(url, TOKEN, period, join(scratch, 'report.json'));
    return { body: readFileSync(file.path), rows: file.rows };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** CPU-µs of reading the report once as the reader does, body discarded. */
async function readMicros(client: WfmClient): Promise<number> {
  const start = process.cpuUsage();
  await client.drainReport({ window: upstreamWindow(period) });
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

/** The byte scan alone over the body's elements, chunk by chunk; the offset of the closing `]`. */
function scanBody(body: Buffer): number {
  const scan = new ElementScan(16 * 1024 * 1024, Number.MAX_SAFE_INTEGER);
  const open = body.indexOf(0x5b) + 1;
  scan.reset(open);
  for (let at = 0; at < body.length; at += CHUNK) {
    const part = body.subarray(at, at + CHUNK);
    const close = scan.scan(part, Math.max(0, scan.scannedTo - at), at, open);
    if (close >= 0) return close;
    scan.scannedTo = at + part.length;
  }
  throw new Error('body-scan: no closing "]"');
}

const sandbox = await startBenchSandbox(ROWS, DAYS);
const client = new WfmClient(
  requireUpstream(loadWfmConfig({ WFM_BASE_URL: sandbox.url, WFM_TOKEN: TOKEN, WFM_COMPRESSION: 'false' })),
  { logger: silentLogger },
);
const reads: number[] = [];
const scanner: number[] = [];
const scanAlone: number[] = [];
let body: Buffer;
let rows: number;
let cuts: number;
try {
  ({ body, rows } = await fetchBody(sandbox.url));
  cuts = cutBody(body, CHUNK, true);
  if (scanBody(body) !== body.lastIndexOf(0x5d))
    throw new Error('body-scan: the scan missed the closing "]"');
  await readMicros(client); // a first read warms the client up (its code, the connection)
  for (let round = 0; round < ROUNDS; round++) {
    reads.push(await readMicros(client));
    scanner.push(cpuMicros(() => cutBody(body, CHUNK, false)));
    scanAlone.push(cpuMicros(() => scanBody(body)));
  }
} finally {
  await client.close();
  await sandbox.stop();
}
const line = (name: string, times: number[]): string => {
  const micros = median(times);
  return `${name.padEnd(26)} ${(micros / rows).toFixed(3)} CPU-µs a row (least ${(Math.min(...times) / rows).toFixed(3)}), ${(body.length / micros).toFixed(0)} MB/s\n`;
};
process.stdout.write(
  `${rows} rows, ${body.length} bytes (${(body.length / rows).toFixed(0)} a row), ${cuts} cuts, ${CHUNK}-byte chunks, medians of ${ROUNDS} rounds\n`,
);
process.stdout.write(line('read (drainReport)', reads));
process.stdout.write(line('JsonArrayScanner', scanner));
process.stdout.write(line('ElementScan.scan alone', scanAlone));
