// Hand-built ShiftRecords, RejectedRows and summaries for the workbook tests: a plain shift plus
// the overrides a test cares about, with the derived fields computed by the pipeline's own localise stage.

import type { FinishedShift } from 'wfm-contract/finished-shift';
import { parseLocalDateTimeSeconds } from 'wfm-contract/local-date-time';
import { validShift, type ShiftRecord } from '../../../src/domain/shift-record.js';
import { ALL_DIVISIONS_LABEL, type ExportSummaries, type GroupStats } from '../../../src/domain/summary.js';
import type { WorkbookAbout } from '../../../src/render/xlsx/shifts-workbook-writer.js';
import { localiseShift } from '../../../src/pipeline/localise.js';

export const BASE_SHIFT: FinishedShift = {
  id: 1001,
  user_id: 7,
  user_login: 'ivanova',
  user_org_level: 'SHOP',
  user_position: 'Cashier',
  user_display_name: 'Anna Ivanova',
  division_id: 1,
  division_name: 'North',
  region_id: 10,
  region_name: 'Region A',
  shop_id: 100,
  shop_sap: '00123',
  shop_locality: 'Moscow',
  shop_address: 'Tverskaya 1',
  start_time: '2024-05-01T05:00:00',
  start_time_offset: 180,
  finish_time: '2024-05-01T13:00:00',
  finish_time_offset: 180,
  duration: 28_800,
  comment: null,
  start_location_lat: 55.7558,
  start_location_lon: 37.6173,
  start_location_distance: 12,
  start_location_match: true,
  finish_location_lat: 55.7559,
  finish_location_lon: 37.6174,
  finish_location_distance: 40,
  finish_location_match: false,
  auto_finished: false,
};

function seconds(text: string): number {
  const value = parseLocalDateTimeSeconds(text);
  if (value === undefined) throw new Error(`bad fixture time ${text}`);
  return value;
}

export function shiftRecord(
  overrides: Partial<FinishedShift> = {},
  extra: Partial<ShiftRecord> = {},
): ShiftRecord {
  const shift: FinishedShift = { ...BASE_SHIFT, ...overrides };
  return {
    ...localiseShift(validShift(shift, seconds(shift.start_time), seconds(shift.finish_time), '')),
    divisionExternalId: 'DIV-N',
    divisionManagers: 'Boris Petrov <petrov>',
    ...extra,
  };
}

export function stats(overrides: Partial<GroupStats> = {}): GroupStats {
  return {
    shifts: 10,
    durationSeconds: 288_000,
    startChecked: 10,
    startMatched: 9,
    finishChecked: 10,
    finishMatched: 5,
    bothChecked: 10,
    bothMatched: 5,
    noLocation: 0,
    startDistanceMedian: 12,
    startDistanceP90: 30.5,
    finishDistanceMedian: 40,
    finishDistanceP90: 80.25,
    autoFinished: 1,
    ...overrides,
  };
}

/** Two divisions: North matches 90% of starts, South 70% (below an 80% threshold). */
export function summaries(): ExportSummaries {
  const north = stats();
  const south = stats({ startMatched: 7 });
  const none = stats({
    shifts: 2,
    startChecked: 0,
    startMatched: 0,
    finishChecked: 0,
    finishMatched: 0,
    bothChecked: 0,
    bothMatched: 0,
    noLocation: 2,
  });
  return {
    overall: stats({ shifts: 22, startChecked: 20, startMatched: 16 }),
    divisions: [
      { divisionId: 1, divisionExternalId: 'DIV-N', divisionName: 'North', stats: north },
      { divisionId: 2, divisionExternalId: null, divisionName: 'South', stats: south },
      { divisionId: 3, divisionExternalId: '007', divisionName: 'West', stats: none },
    ],
    // 2024-05-01 and 2024-05-02 (day numbers 19844, 19845).
    days: [
      { businessDay: 19_844, divisionId: null, divisionName: ALL_DIVISIONS_LABEL, stats: north },
      { businessDay: 19_844, divisionId: 1, divisionName: 'North', stats: north },
      { businessDay: 19_845, divisionId: null, divisionName: ALL_DIVISIONS_LABEL, stats: south },
      { businessDay: 19_845, divisionId: 2, divisionName: 'South', stats: south },
    ],
    regions: [{ regionId: 10, regionName: 'Region A', divisionId: 1, divisionName: 'North', stats: north }],
    shops: [
      {
        shopId: 100,
        shopSap: '00123',
        shopLocality: null,
        regionName: 'Region A',
        divisionName: 'North',
        stats: north,
      },
    ],
    users: [{ userId: 7, userLogin: 'ivanova', userDisplayName: '=cmd|calc', stats: south }],
  };
}

export function about(overrides: Partial<WorkbookAbout> = {}): WorkbookAbout {
  return {
    period: { from: '2024-05-01', to: '2024-05-07' },
    generatedAt: new Date(Date.UTC(2024, 4, 8, 4, 0, 0)),
    timeZone: 'Europe/Berlin',
    sourceBaseUrl: 'https://wfm.example.com',
    counts: { fetched: 30, exported: 22, rejected: 2, duplicates: 3, outside_window: 3, flagged: 1 },
    exportId: 'exp-2024-05-01_2024-05-07-test',
    toolVersion: '0.1.0',
    ...overrides,
  };
}
