// How far V8 lets the old generation grow past what the last full collection left alive.
//
// An export keeps little alive, but garbage that survives two scavenges — rows of a batch waiting
// for a slow sink, buffers queued for a file or for zlib — is collected only by a full collection,
// and V8 by default lets the old generation grow to up to 4x the live size before it runs one.
// That slack, not the export, is what took peak RSS over the memory target. A fixed growth factor
// of 2 runs full collections earlier, trading a little CPU for the memory target (figures, and why
// not 1.5: bench/README.md, "Why the code is the way it is").
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
