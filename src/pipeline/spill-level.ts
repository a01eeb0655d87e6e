// How one level of groups that may spill (users, shops) is labelled and summarised: what
// group-spill.ts writes of a group and summary-sorter.ts of a summary, and how the table is sorted.

import type { GroupStats } from '../domain/summary.js';
import type { GroupAccumulator } from './group-accumulator.js';

export interface SpillLevel<
  G extends { readonly stats: GroupAccumulator },
  S extends { readonly stats: GroupStats },
> {
  /** Goes into the temp files' names. */
  readonly label: string;
  /** How many labels labels() gives. */
  readonly labelCount: number;
  labels(group: G): readonly (string | null)[];
  summaryLabels(summary: S): readonly (string | null)[];
  summary(id: number, labels: readonly (string | null)[], stats: GroupStats): S;
  id(summary: S): number;
  /** The name the table is sorted by. */
  name(summary: S): string;
}
