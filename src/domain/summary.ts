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

/** Every summary table of one export, each sorted by name (then id) for stable output. */
export interface ExportSummaries {
  readonly overall: GroupStats;
  readonly divisions: readonly DivisionSummary[];
  readonly regions: readonly RegionSummary[];
  readonly shops: readonly ShopSummary[];
  readonly users: readonly UserSummary[];
}
