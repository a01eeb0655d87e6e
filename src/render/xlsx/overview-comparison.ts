// What the Overview compares with: the definition's previous period as published (its manifest,
// found by findPreviousPeriod), cut down to the figures one workbook needs — the whole export's
// statistics and its divisions' start match rates, or, for a division's workbook, that division's
// entry (its statistics and its regions' rates). The delivery e-mail reads the same entries
// (notify/mail-glance.ts), so the workbook and the mail show the same changes.

import type { Period } from '../../domain/period.js';
import type { ManifestStatistics } from '../manifest.js';
import type { PreviousPeriod } from '../previous-period.js';

export type OverviewComparison =
  /** No previous period is published (or it could not be read): nothing to compare with yet. */
  | { readonly kind: 'first' }
  /** The previous period is published without figures for this workbook (an older release, a division without shifts then). */
  | { readonly kind: 'no_figures'; readonly period: Period }
  | {
      readonly kind: 'against';
      readonly period: Period;
      readonly statistics: ManifestStatistics;
      /** The start match rate of each group then (divisions, or the division's regions), by id. */
      readonly groupStartRates: ReadonlyMap<number, number | null>;
    };

/**
 * The comparison of the whole export's workbook (`divisionId` undefined) or of a division's;
 * `previous` undefined: the first period.
 */
export function overviewComparison(
  previous: PreviousPeriod | undefined,
  divisionId: number | undefined,
): OverviewComparison {
  if (previous === undefined) return { kind: 'first' };
  const { period, manifest } = previous;
  if (divisionId === undefined) {
    const rates = (manifest.division_rates ?? []).map((d) => [d.division_id, d.start_match_rate] as const);
    return { kind: 'against', period, statistics: manifest.statistics, groupStartRates: new Map(rates) };
  }
  const then = manifest.divisions?.find((d) => d.division_id === divisionId);
  if (then?.statistics === undefined) return { kind: 'no_figures', period };
  const rates = (then.region_rates ?? []).map((r) => [r.region_id, r.start_match_rate] as const);
  return { kind: 'against', period, statistics: then.statistics, groupStartRates: new Map(rates) };
}
