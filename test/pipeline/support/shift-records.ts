// A row through the first two stages, for tests of the stages after them.

import type { ShiftRecord } from '../../../src/domain/shift-record.js';
import { localiseShift } from '../../../src/pipeline/localise.js';
import { isRejected, validateShift } from '../../../src/pipeline/validate.js';

/** The localised record of a row that validates; throws with the reason when it is rejected. */
export function recordOf(raw: unknown): ShiftRecord {
  const valid = validateShift(raw);
  if (isRejected(valid)) throw new Error(`unexpectedly rejected: ${valid.reason}`);
  return localiseShift(valid);
}
