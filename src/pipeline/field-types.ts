// The type check of a row's fields against the FinishedShift contract, hand-written for the hot
// path. finishedShiftSchema (zod) stays the contract: this check accepts exactly the rows the schema
// accepts and returns the same object (the schema's members only, in its order) — property-tested
// against safeParse — and any row it refuses goes to zod, which explains or repairs it. Why:
// safeParse alone would take over half of the time a row the stages target allows; this check a
// fraction (docs/performance.md).

import { ORG_LEVELS, type FinishedShift, type OrgLevel } from 'wfm-contract/finished-shift';
import { isLocalDateTimeText } from 'wfm-contract/local-date-time';

type LooseRow = Readonly<Record<string, unknown>>;

// Each check mirrors the schema: z.number().int() is a safe integer, z.number() a finite number.
const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isNumberOrNull = (v: unknown): v is number | null =>
  v === null || (typeof v === 'number' && Number.isFinite(v));
const isIntegerOrNull = (v: unknown): v is number | null => v === null || isInteger(v);
const isStringOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isBooleanOrNull = (v: unknown): v is boolean | null => v === null || typeof v === 'boolean';
const isDateTime = (v: unknown): v is string => typeof v === 'string' && isLocalDateTimeText(v);
const isOrgLevel = (v: unknown): v is OrgLevel =>
  typeof v === 'string' && (ORG_LEVELS as readonly string[]).includes(v);

/** The row as a FinishedShift when it satisfies finishedShiftSchema; undefined otherwise. */
export function checkFieldTypes(raw: unknown): FinishedShift | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const r = raw as LooseRow;
  const id = r['id'];
  const userId = r['user_id'];
  const userLogin = r['user_login'];
  const userOrgLevel = r['user_org_level'];
  const userPosition = r['user_position'];
  const userDisplayName = r['user_display_name'];
  const divisionId = r['division_id'];
  const divisionName = r['division_name'];
  const regionId = r['region_id'];
  const regionName = r['region_name'];
  const shopId = r['shop_id'];
  const shopSap = r['shop_sap'];
  const shopLocality = r['shop_locality'];
  const shopAddress = r['shop_address'];
  const startTime = r['start_time'];
  const startTimeOffset = r['start_time_offset'];
  const finishTime = r['finish_time'];
  const finishTimeOffset = r['finish_time_offset'];
  const duration = r['duration'];
  const comment = r['comment'];
  const startLat = r['start_location_lat'];
  const startLon = r['start_location_lon'];
  const startDistance = r['start_location_distance'];
  const startMatch = r['start_location_match'];
  const finishLat = r['finish_location_lat'];
  const finishLon = r['finish_location_lon'];
  const finishDistance = r['finish_location_distance'];
  const finishMatch = r['finish_location_match'];
  const autoFinished = r['auto_finished'];
  if (
    !isInteger(id) ||
    !isInteger(userId) ||
    typeof userLogin !== 'string' ||
    !isOrgLevel(userOrgLevel) ||
    !isStringOrNull(userPosition) ||
    typeof userDisplayName !== 'string' ||
    !isInteger(divisionId) ||
    typeof divisionName !== 'string' ||
    !isInteger(regionId) ||
    typeof regionName !== 'string' ||
    !isInteger(shopId) ||
    typeof shopSap !== 'string' ||
    !isStringOrNull(shopLocality) ||
    !isStringOrNull(shopAddress) ||
    !isDateTime(startTime) ||
    !isInteger(startTimeOffset) ||
    !isDateTime(finishTime) ||
    !isInteger(finishTimeOffset) ||
    !isInteger(duration) ||
    !isStringOrNull(comment) ||
    !isNumberOrNull(startLat) ||
    !isNumberOrNull(startLon) ||
    !isIntegerOrNull(startDistance) ||
    !isBooleanOrNull(startMatch) ||
    !isNumberOrNull(finishLat) ||
    !isNumberOrNull(finishLon) ||
    !isIntegerOrNull(finishDistance) ||
    !isBooleanOrNull(finishMatch) ||
    typeof autoFinished !== 'boolean'
  ) {
    return undefined;
  }
  return {
    id,
    user_id: userId,
    user_login: userLogin,
    user_org_level: userOrgLevel,
    user_position: userPosition,
    user_display_name: userDisplayName,
    division_id: divisionId,
    division_name: divisionName,
    region_id: regionId,
    region_name: regionName,
    shop_id: shopId,
    shop_sap: shopSap,
    shop_locality: shopLocality,
    shop_address: shopAddress,
    start_time: startTime,
    start_time_offset: startTimeOffset,
    finish_time: finishTime,
    finish_time_offset: finishTimeOffset,
    duration,
    comment,
    start_location_lat: startLat,
    start_location_lon: startLon,
    start_location_distance: startDistance,
    start_location_match: startMatch,
    finish_location_lat: finishLat,
    finish_location_lon: finishLon,
    finish_location_distance: finishDistance,
    finish_location_match: finishMatch,
    auto_finished: autoFinished,
  };
}
