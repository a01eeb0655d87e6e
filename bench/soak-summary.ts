// What the soak line (`npm run bench -- --soak`, soak.ts) reads from its exports: the worker's RSS
// after every export and each export's duration. A worker that runs for months must not grow: RSS
// after the last export within 10% of RSS after the 30th (once start-up and the first exports'
// warm-up are paid), and durations with no upward trend (a least-squares slope per 100 exports,
// and the median of the last 30 against the first 30).

import { median } from './bench-lines.js';
import type { ProcessMemory } from './process-memory.js';

export interface SoakSample {
  /** 1-based: the nth export the worker ran. */
  readonly index: number;
  /** The worker's own time for the export (BullMQ's processedOn to finishedOn), ms. */
  readonly durationMs: number;
  /** The worker process's RSS right after the export completed, MB. */
  readonly rssMb: number;
  /** Where that RSS lies, read at the same moment. */
  readonly memory?: ProcessMemory;
}

export interface SoakSummary {
  readonly exports: number;
  /** RSS after export `warmUp` (30, or the last when fewer ran). */
  readonly baselineIndex: number;
  readonly baselineRssMb: number;
  readonly finalRssMb: number;
  /** finalRssMb / baselineRssMb. */
  readonly rssRatio: number;
  /** Least-squares slope of the durations, ms per 100 exports. */
  readonly slopeMsPer100: number;
  readonly firstMedianMs: number;
  readonly lastMedianMs: number;
  /** RSS at every `every`th export and at the last. */
  readonly checkpoints: readonly SoakSample[];
}

/** RSS growth allowed from export 30 to the last: 10%. */
export const SOAK_RSS_GROWTH_LIMIT = 1.1;
/** Exports counted as warm-up: the RSS baseline is taken after this one. */
export const SOAK_WARM_UP = 30;

/** The least-squares slope of y over x (0 with fewer than two points). */
export function leastSquaresSlope(points: readonly { readonly x: number; readonly y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.x - meanX) * (p.y - meanY);
    variance += (p.x - meanX) ** 2;
  }
  return variance === 0 ? 0 : covariance / variance;
}

export function summariseSoak(samples: readonly SoakSample[], every = SOAK_WARM_UP): SoakSummary {
  if (samples.length === 0) throw new Error('the soak ran no export');
  const last = samples[samples.length - 1] as SoakSample;
  const baseline = samples[Math.min(SOAK_WARM_UP, samples.length) - 1] as SoakSample;
  const window = Math.min(SOAK_WARM_UP, samples.length);
  const durations = samples.map((s) => s.durationMs);
  return {
    exports: samples.length,
    baselineIndex: baseline.index,
    baselineRssMb: baseline.rssMb,
    finalRssMb: last.rssMb,
    rssRatio: last.rssMb / baseline.rssMb,
    slopeMsPer100: 100 * leastSquaresSlope(samples.map((s) => ({ x: s.index, y: s.durationMs }))),
    firstMedianMs: median(durations.slice(0, window)),
    lastMedianMs: median(durations.slice(-window)),
    checkpoints: samples.filter((s) => s.index % every === 0 || s === last),
  };
}

const mb = (n: number): string => n.toFixed(1);
const secs = (ms: number): string => (ms / 1000).toFixed(2);

/** The soak's report, as text: the checkpoints, then the verdicts against the targets. */
export function formatSoak(summary: SoakSummary): string {
  const lines = [
    '| after export | RSS MB | of it: glibc thread arenas MB (arenas) | main arena MB | other anonymous MB | files MB | this export s |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const s of summary.checkpoints) {
    const m = s.memory;
    const where =
      m === undefined
        ? '| | | |'
        : `| ${mb(m.arenasMb)} (${m.arenas}) | ${mb(m.mainArenaMb)} | ${mb(m.otherAnonymousMb)} | ${mb(m.filesMb)} |`;
    lines.push(`| ${s.index} | ${mb(s.rssMb)} ${where} ${secs(s.durationMs)} |`);
  }
  const growth = (summary.rssRatio - 1) * 100;
  const withinRss = summary.rssRatio <= SOAK_RSS_GROWTH_LIMIT;
  const trendPercent = (100 * summary.slopeMsPer100) / Math.max(1, summary.firstMedianMs);
  lines.push(
    '',
    `RSS after export ${summary.exports}: ${mb(summary.finalRssMb)} MB, after export ${summary.baselineIndex}: ` +
      `${mb(summary.baselineRssMb)} MB, ratio ${summary.rssRatio.toFixed(3)} (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%; ` +
      `target ≤ +${Math.round((SOAK_RSS_GROWTH_LIMIT - 1) * 100)}%: ${withinRss ? 'met' : 'MISSED'})`,
    `duration: median of the first ${Math.min(SOAK_WARM_UP, summary.exports)} ${secs(summary.firstMedianMs)} s, ` +
      `of the last ${Math.min(SOAK_WARM_UP, summary.exports)} ${secs(summary.lastMedianMs)} s; ` +
      `least-squares slope ${summary.slopeMsPer100 >= 0 ? '+' : ''}${summary.slopeMsPer100.toFixed(0)} ms per 100 exports ` +
      `(${trendPercent >= 0 ? '+' : ''}${trendPercent.toFixed(1)}% of the first median)`,
  );
  return lines.join('\n');
}
