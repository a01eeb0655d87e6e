// The dedup stage: an id seen twice is exported once (the first sighting). Runs after the window
// stage, so only ids of the period are remembered and a duplicate outside the period is counted
// once, as outside_window.

import type { ShiftRecord } from '../domain/shift-record.js';
import { SeenIds } from './seen-ids.js';

export class DuplicateFilter {
  private readonly seen = new SeenIds();
  private dropped = 0;

  /** True the first time a record's id comes by; every later sighting is counted. */
  admits(record: ShiftRecord): boolean {
    return this.admitsId(record.shift.id);
  }

  /** The same, by the row's id alone. */
  admitsId(id: number): boolean {
    if (this.seen.add(id)) return true;
    this.dropped++;
    return false;
  }

  /** Records dropped so far (duplicates). */
  get duplicates(): number {
    return this.dropped;
  }
}
