import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Live memory, not raw heap usage: without a collection first, heapUsed and arrayBuffers also
// count garbage the collector has not reached yet. On a loaded CI machine that was 113 MB of an
// honest stream, so tests that bound memory measure after a full collection.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Heap plus ArrayBuffer bytes still reachable after a full collection. */
export function liveMemory(): number {
  collectGarbage();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
