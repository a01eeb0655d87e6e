// The window stage: an export covers the local business dates from..to, both inclusive. The
// upstream request is wider (offsets reach -12:00..+14:00) and an upstream may ignore the filter
// altogether, so every row is checked here and the ones outside are dropped and counted.

import { periodDayRange, type Period } from '../domain/period.js';
import type { ShiftRecord } from '../domain/shift-record.js';

export interface BusinessDayWindow {
  /** First and last business day numbers (days since 1970-01-01), both inclusive. */
  readonly first: number;
  readonly last: number;
}

export function businessDayWindow(period: Period): BusinessDayWindow {
  return periodDayRange(period);
}

export function isInWindow(record: ShiftRecord, window: BusinessDayWindow): boolean {
  return record.businessDay >= window.first && record.businessDay <= window.last;
}
