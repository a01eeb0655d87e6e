// A step of the export (run-export.ts): the definition's previous period as published beside this
// one, for the workbook's Overview to compare with (findPreviousPeriod, as the delivery e-mail finds
// it). A comparison is worth a line of the Overview, not the export: a manifest that cannot be read
// is "nothing to compare with", and the log says why.

import { describeError } from '../errors.js';
import type { Period } from '../domain/period.js';
import type { Logger } from '../logger.js';
import {
  findPreviousPeriod,
  type PreviousPeriod,
  type PublishedManifests,
} from '../render/previous-period.js';

/** The previous period, or null when there is none to compare with (none published, or unreadable). */
export async function readPreviousPeriod(
  published: PublishedManifests,
  period: Period,
  log: Logger,
): Promise<PreviousPeriod | null> {
  try {
    const previous = await findPreviousPeriod(published, period);
    log.debug({ previousPeriod: previous?.period ?? null }, 'previous period for the Overview');
    return previous ?? null;
  } catch (error) {
    log.warn(
      { reason: describeError(error) },
      "the previous period's manifest could not be read; the Overview compares with nothing",
    );
    return null;
  }
}
