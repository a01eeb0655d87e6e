// The child process of one measured run: `node dist/bench/measure.js '<MeasureInput JSON>'`.
// Runs the measurement, then prints one JSON line (MeasureResult) on stdout. Its own process, so
// CPU time (all threads) and peak RSS belong to this run alone.

import { performance } from 'node:perf_hooks';
import { limitHeapGrowth } from '../src/heap-growth.js';
import { measure, type MeasureInput } from './measure-kinds.js';

export interface MeasureResult {
  readonly kind: string;
  readonly rows: number;
  readonly bytes?: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly stageMs?: number;
  readonly peakRssMb: number;
}

// As the CLI does, so that every line measures the heap the product runs with.
limitHeapGrowth();
const input = JSON.parse(process.argv[2] ?? '{}') as MeasureInput;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const outcome = await measure(input);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const result: MeasureResult = {
  kind: input.kind,
  ...outcome,
  wallMs,
  cpuMs: (cpu.user + cpu.system) / 1000,
  // maxRSS is in kilobytes.
  peakRssMb: process.resourceUsage().maxRSS / 1024,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
