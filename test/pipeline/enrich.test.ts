import { describe, expect, it } from 'vitest';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { divisionDirectory, enrichShift, managerLabel } from '../../src/pipeline/enrich.js';
import { isRejected, validateShift } from '../../src/pipeline/validate.js';
import type { Division, DivisionManager } from '../../src/wfm/schemas.js';
import { shiftRow } from './support/shift-rows.js';

function manager(id: number, firstName: string, lastName: string, login: string): DivisionManager {
  return {
    id,
    active: true,
    login,
    firstName,
    lastName,
    position: 'Head',
    level: 'DIVISION',
    businessDirId: 7,
    lang: 'en',
    invited: true,
    inviteAccepted: true,
    inviteAcceptedAt: '2024-01-01T00:00:00',
  };
}

function division(id: number, externalId: string | null, dirs?: DivisionManager[]): Division {
  const base = { id, externalId, name: `Division ${id}`, active: true, regionsCount: 1, shopsCount: 2 };
  return dirs === undefined ? base : { ...base, dirs };
}

function record(divisionId: number): ShiftRecord {
  const result = validateShift(shiftRow({ division_id: divisionId }));
  if (isRejected(result)) throw new Error(result.reason);
  return result;
}

describe('enrich', () => {
  const directory = divisionDirectory([
    division(7, 'N-07', [
      manager(1, 'Olga', 'Petrova', 'o.petrova'),
      manager(2, 'Ivan', 'Sidorov', 'i.sidorov'),
    ]),
    division(8, null),
    division(9, 'S-09', []),
    division(7, 'DUPLICATE', [manager(3, 'X', 'Y', 'xy')]),
  ]);

  it('names managers as "First Last <login>" joined by "; " in the list order', () => {
    expect(directory.get(7)).toEqual({
      name: 'Division 7',
      externalId: 'N-07',
      managers: 'Olga Petrova <o.petrova>; Ivan Sidorov <i.sidorov>',
    });
  });

  it('gives no managers to a division without dirs or with an empty list', () => {
    expect(directory.get(8)?.managers).toBeNull();
    expect(directory.get(9)?.managers).toBeNull();
  });

  it('keeps the first entry of a division listed twice', () => {
    expect(directory.get(7)?.externalId).toBe('N-07');
    expect(directory.size).toBe(3);
  });

  it('leaves no stray space when a name part is empty', () => {
    expect(managerLabel({ firstName: '', lastName: 'Petrova', login: 'op' })).toBe('Petrova <op>');
    expect(managerLabel({ firstName: ' ', lastName: '', login: 'op' })).toBe('<op>');
  });

  it('copies the external id and managers onto the record in place', () => {
    const r = record(7);
    enrichShift(r, directory);
    expect([r.divisionExternalId, r.divisionManagers]).toEqual([
      'N-07',
      'Olga Petrova <o.petrova>; Ivan Sidorov <i.sidorov>',
    ]);
  });

  it('leaves both null for a division the metadata does not know', () => {
    const r = record(12345);
    enrichShift(r, directory);
    expect([r.divisionExternalId, r.divisionManagers]).toEqual([null, null]);
  });
});
