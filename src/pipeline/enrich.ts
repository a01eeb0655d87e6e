// The enrich stage: division metadata (GET /v1/orgstruct/divisions?fields=dirs, fetched once per
// export) turned into a directory by division id, and copied onto each record in place.

import type { ShiftRecord } from '../domain/shift-record.js';
import type { Division, DivisionManager } from '../wfm/schemas.js';

export interface DivisionInfo {
  /** The division's name in the metadata: used for divisions that have no shifts. */
  readonly name: string;
  readonly externalId: string | null;
  /** `First Last <login>` of each manager in the list's order, joined by "; "; null without dirs. */
  readonly managers: string | null;
}

export type DivisionDirectory = ReadonlyMap<number, DivisionInfo>;

/** `First Last <login>`; a missing name part leaves no stray space. */
export function managerLabel(manager: Pick<DivisionManager, 'firstName' | 'lastName' | 'login'>): string {
  const name = [manager.firstName.trim(), manager.lastName.trim()].filter((part) => part !== '').join(' ');
  return name === '' ? `<${manager.login}>` : `${name} <${manager.login}>`;
}

/**
 * The directory of a division list. Every listed manager is named, active or not (the list is
 * what the upstream says manages the division). When an id is listed twice, the first wins.
 */
export function divisionDirectory(divisions: readonly Division[]): Map<number, DivisionInfo> {
  const directory = new Map<number, DivisionInfo>();
  for (const division of divisions) {
    if (directory.has(division.id)) continue;
    const dirs = division.dirs ?? [];
    directory.set(division.id, {
      name: division.name,
      externalId: division.externalId,
      managers: dirs.length === 0 ? null : dirs.map(managerLabel).join('; '),
    });
  }
  return directory;
}

/** Sets division_external_id and division_managers; both stay null for an unknown division. */
export function enrichShift(record: ShiftRecord, directory: DivisionDirectory): void {
  const info = directory.get(record.shift.division_id);
  if (info === undefined) return;
  record.divisionExternalId = info.externalId;
  record.divisionManagers = info.managers;
}
