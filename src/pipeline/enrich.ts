// The enrich stage: division metadata (GET /v1/orgstruct/divisions?fields=dirs, fetched once per
// export) turned into a directory by division id, and copied onto each record in place. The
// metadata's texts are upstream bytes like the report's: they get the same character rule
// (spreadsheet-safe-text.ts) once, here, and a row that carries a replaced one is flagged.

import type { ShiftRecord } from '../domain/shift-record.js';
import { spreadsheetSafeText } from '../domain/spreadsheet-safe-text.js';
import type { Division, DivisionManager } from 'wfm-contract/division';
import { withTextReplaced } from './quality-flags.js';

export interface DivisionInfo {
  /** The division's name in the metadata: used for divisions that have no shifts. */
  readonly name: string;
  readonly externalId: string | null;
  /** `First Last <login>` of each manager in the list's order, joined by "; "; null without dirs. */
  readonly managers: string | null;
  /** True when externalId or managers (the texts copied onto rows) had characters replaced. */
  readonly textReplaced: boolean;
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
    const externalId = safeOrNull(division.externalId);
    const managers = safeOrNull(dirs.length === 0 ? null : dirs.map(managerLabel).join('; '));
    directory.set(division.id, {
      name: spreadsheetSafeText(division.name),
      externalId: externalId.text,
      managers: managers.text,
      textReplaced: externalId.replaced || managers.replaced,
    });
  }
  return directory;
}

function safeOrNull(text: string | null): { text: string | null; replaced: boolean } {
  if (text === null) return { text, replaced: false };
  const safe = spreadsheetSafeText(text);
  return { text: safe, replaced: safe !== text };
}

/** The record with division_external_id and division_managers set in place (null for an unknown division). */
export function enrichShift(record: ShiftRecord, directory: DivisionDirectory): ShiftRecord {
  const info = directory.get(record.shift.division_id);
  if (info === undefined) return record;
  record.divisionExternalId = info.externalId;
  record.divisionManagers = info.managers;
  if (info.textReplaced) record.qualityFlags = withTextReplaced(record.qualityFlags);
  return record;
}
