// Between the steps of an export: once its AbortSignal has fired (a cancelled job, Ctrl-C,
// shutdown), the next step does not start.

import { AbortedError } from '../errors.js';

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortedError('the export was aborted', signal.reason);
}
