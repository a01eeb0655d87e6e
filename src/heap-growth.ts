// How far V8 lets the old generation grow past what the last full collection left alive.
//
// An export keeps little alive (~50 MB at 3M rows), but garbage that survives two scavenges — rows
// of a batch waiting for a slow sink, buffers queued for a file or for zlib — is collected only by a
// full collection, and V8 by default lets the old generation grow to up to 4x the live size before
// it runs one. That slack, not the export, took a 3M-row CSV export to ~300 MB and a 1M-row
// CSV+XLSX export to ~270 MB. A fixed growth factor of 2 runs full collections earlier. Measured
// (peak RSS, same host): CSV 1M 216-264 -> 200-208 MB, 3M 292 -> 235-247 MB; CSV+XLSX 1M 264-278
// -> 206-215 MB, 3M 250-256 MB (305 before, another day); for ~10% more CPU on the workbook path (more full
// collections). A factor of 1.5 saved 10-20 MB more for ~20% more CPU there.
//
// V8 accepts this flag only on its command line or through v8.setFlagsFromString (not NODE_OPTIONS),
// and reads it each time it sizes the heap, so setting it first thing at run time takes effect.

import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to (1 + this/100) times its live size before a full collection. */
export const HEAP_GROWING_PERCENT = 100;

/** Called once when the process starts (the CLI, the bench's measured runs). */
export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
