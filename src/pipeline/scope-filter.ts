// The scope-filter stage: an export defined for some divisions, regions or shops (RowFilter) keeps
// only their rows. A row outside is neither exported nor rejected: it is counted (filtered_out),
// so that the counts still add up. It runs after validation — a row that cannot be read has no
// trustworthy ids, and stays a rejected row — and before the window and dedup, so a row outside
// the filter is counted as filtered_out whatever its date or id.

import type { FinishedShift } from 'wfm-contract/finished-shift';
import type { RowFilter } from '../domain/row-filter.js';

export class ScopeFilter {
  readonly #divisions: ReadonlySet<number> | undefined;
  readonly #regions: ReadonlySet<number> | undefined;
  readonly #shops: ReadonlySet<number> | undefined;
  #outside = 0;

  constructor(filter: RowFilter) {
    this.#divisions = filter.divisions === undefined ? undefined : new Set(filter.divisions);
    this.#regions = filter.regions === undefined ? undefined : new Set(filter.regions);
    this.#shops = filter.shops === undefined ? undefined : new Set(filter.shops);
  }

  /** True when the row's division, region and shop are each in their list (when given); else counted. */
  admits(shift: FinishedShift): boolean {
    if (
      (this.#divisions === undefined || this.#divisions.has(shift.division_id)) &&
      (this.#regions === undefined || this.#regions.has(shift.region_id)) &&
      (this.#shops === undefined || this.#shops.has(shift.shop_id))
    )
      return true;
    this.#outside++;
    return false;
  }

  /** Rows not admitted so far (filtered_out). */
  get outside(): number {
    return this.#outside;
  }
}
