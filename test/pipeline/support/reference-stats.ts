// The statistics of a group computed the plain way — filter, count, sort, and Excel's MEDIAN and
// PERCENTILE.INC as documented — to check the streaming aggregate against.

import { roundTo } from '../../../src/domain/decimal.js';
import type { FinishedShift } from 'wfm-contract/finished-shift';
import type { GroupStats } from '../../../src/domain/summary.js';

/** Plain reference: filter, count, sort, and Excel's formulas as documented. */
export function referenceStats(shifts: readonly FinishedShift[]): GroupStats {
  const percentile = (values: number[], p: number): number | null => {
    if (values.length === 0) return null;
    const sorted = [...values].sort((a, b) => a - b);
    const rank = p * (sorted.length - 1);
    const low = Math.floor(rank);
    const high = Math.min(low + 1, sorted.length - 1);
    return roundTo(sorted[low]! + (rank - low) * (sorted[high]! - sorted[low]!), 2);
  };
  const starts = shifts.map((s) => s.start_location_distance).filter((d): d is number => d !== null);
  const finishes = shifts.map((s) => s.finish_location_distance).filter((d): d is number => d !== null);
  const both = shifts.filter((s) => s.start_location_match !== null && s.finish_location_match !== null);
  return {
    shifts: shifts.length,
    durationSeconds: shifts.reduce((sum, s) => sum + s.duration, 0),
    startChecked: shifts.filter((s) => s.start_location_match !== null).length,
    startMatched: shifts.filter((s) => s.start_location_match === true).length,
    finishChecked: shifts.filter((s) => s.finish_location_match !== null).length,
    finishMatched: shifts.filter((s) => s.finish_location_match === true).length,
    bothChecked: both.length,
    bothMatched: both.filter((s) => s.start_location_match && s.finish_location_match).length,
    noLocation: shifts.filter((s) => s.start_location_match === null && s.finish_location_match === null)
      .length,
    startDistanceMedian: percentile(starts, 0.5),
    startDistanceP90: percentile(starts, 0.9),
    finishDistanceMedian: percentile(finishes, 0.5),
    finishDistanceP90: percentile(finishes, 0.9),
    autoFinished: shifts.filter((s) => s.auto_finished).length,
  };
}
