// The window stage: an export covers the local business dates from..to, both inclusive. The
// upstream request is wider (offsets reach -12:00..+14:00) and an upstream may ignore the filter
// altogether, so every row is checked here and the ones outside are dropped and counted.

import { periodDayRange, type Period } from '../domain/period.js';
import type { ShiftRecord } from '../domain/shift-record.js';

export class BusinessDayWindow {
  /** First and last business day numbers (days since 1970-01-01), both inclusive. */
  readonly first: number;
  readonly last: number;
  private dropped = 0;

  constructor(period: Period) {
    ({ first: this.first, last: this.last } = periodDayRange(period));
  }

  /** True when the record's business date is in the period; a record outside is counted. */
  admits(record: ShiftRecord): boolean {
    if (record.businessDay >= this.first && record.businessDay <= this.last) return true;
    this.dropped++;
    return false;
  }

  /** Records dropped so far (outside_window). */
  get outside(): number {
    return this.dropped;
  }
}
