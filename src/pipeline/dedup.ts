// The dedup stage: an id seen twice is exported once (the first sighting). Runs after the window
// stage, so only ids of the period are remembered and a duplicate outside the period is counted
// once, as outside_window.

import { IdSet } from './id-set.js';

export class DuplicateFilter {
  private readonly seen = new IdSet();

  /** True the first time an id comes by, false for every later sighting. */
  firstSighting(id: number): boolean {
    return this.seen.add(id);
  }

  /** Distinct ids seen so far. */
  get distinct(): number {
    return this.seen.size;
  }
}
