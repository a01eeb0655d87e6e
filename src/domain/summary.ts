// Location-match statistics of a group of shifts (a division, region, shop, user, or all of them),
// as produced by the aggregate stage and read by the summary renderers.

export interface GroupStats {
  readonly shifts: number;
  readonly durationSeconds: number;
  /** Shifts whose start_location_match is not null, and of those the true ones. */
  readonly startChecked: number;
  readonly startMatched: number;
  readonly finishChecked: number;
  readonly finishMatched: number;
  /** Shifts whose two match flags are both not null, and of those the ones with both true. */
  readonly bothChecked: number;
  readonly bothMatched: number;
  /** Shifts whose two match flags are both null. */
  readonly noLocation: number;
  /** Excel MEDIAN / PERCENTILE.INC(…, 0.9) over the non-null distances; null when there are none. */
  readonly startDistanceMedian: number | null;
  readonly startDistanceP90: number | null;
  readonly finishDistanceMedian: number | null;
  readonly finishDistanceP90: number | null;
  readonly autoFinished: number;
}

export interface DivisionSummary {
  readonly divisionId: number;
  readonly divisionExternalId: string | null;
  readonly divisionName: string;
  readonly stats: GroupStats;
}

export interface RegionSummary {
  readonly regionId: number;
  readonly regionName: string;
  readonly divisionId: number;
  readonly divisionName: string;
  readonly stats: GroupStats;
}

export interface ShopSummary {
  readonly shopId: number;
  readonly shopSap: string;
  readonly shopLocality: string | null;
  readonly regionName: string;
  readonly divisionName: string;
  readonly stats: GroupStats;
}

export interface UserSummary {
  readonly userId: number;
  readonly userLogin: string;
  readonly userDisplayName: string;
  readonly stats: GroupStats;
}

/** The division_name of a day's "all divisions" row (its division_id is empty). */
export const ALL_DIVISIONS_LABEL = 'All divisions';

/** One business date and division, or (divisionId null) the day's shifts of all divisions. */
export interface DaySummary {
  /** Day number (days since 1970-01-01) of the business date. */
  readonly businessDay: number;
  readonly divisionId: number | null;
  readonly divisionName: string;
  readonly stats: GroupStats;
}

/**
 * The rows of a summary table in order: an array, or (past the export's memory budget) rows read
 * back from temp files, which may be iterated as often as a writer needs.
 */
export interface SummaryRows<T> extends Iterable<T> {
  readonly length: number;
}

/**
 * Every summary table of one export, each sorted by name (then id) for stable output; `days` by
 * business date, each day's "all divisions" row first, then its divisions by name (then id).
 */
export interface ExportSummaries {
  readonly overall: GroupStats;
  readonly divisions: readonly DivisionSummary[];
  readonly days: readonly DaySummary[];
  readonly regions: readonly RegionSummary[];
  readonly shops: SummaryRows<ShopSummary>;
  readonly users: SummaryRows<UserSummary>;
}
