// The child process of one measured run: `node dist/bench/measure.js '<MeasureInput JSON>'`.
// Runs the measurement, then prints one JSON line (MeasureResult) on stdout. Its own process, so
// CPU time (all threads) and peak RSS belong to this run alone.

import { performance } from 'node:perf_hooks';
import { measure, type MeasureInput } from './measure-kinds.js';
import { mainThreadCpuMs } from './thread-cpu.js';

export interface MeasureResult {
  readonly kind: string;
  readonly rows: number;
  readonly bytes?: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  /** CPU of the main thread alone (Linux); cpuMs counts every thread. */
  readonly mainThreadCpuMs?: number;
  readonly stageMs?: number;
  /** A workbook's Shifts sheet bytes per exported shift (uncompressed XML, and as stored). */
  readonly sheetBytesPerRow?: { readonly xml: number; readonly compressed: number };
  readonly peakRssMb: number;
}

const input = JSON.parse(process.argv[2] ?? '{}') as MeasureInput;
const cpu0 = process.cpuUsage();
const main0 = mainThreadCpuMs();
const t0 = performance.now();
const outcome = await measure(input);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const main1 = mainThreadCpuMs();
const result: MeasureResult = {
  kind: input.kind,
  ...outcome,
  wallMs,
  cpuMs: (cpu.user + cpu.system) / 1000,
  ...(main0 === undefined || main1 === undefined ? {} : { mainThreadCpuMs: main1 - main0 }),
  // maxRSS is in kilobytes.
  peakRssMb: process.resourceUsage().maxRSS / 1024,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
