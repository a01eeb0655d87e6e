import { describe, expect, it } from 'vitest';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { divisionDirectory, enrichShift, managerLabel } from '../../src/pipeline/enrich.js';
import type { Division, DivisionManager } from 'wfm-contract/division';
import { recordOf } from './support/shift-records.js';
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
  return recordOf(shiftRow({ division_id: divisionId }));
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
      textReplaced: false,
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

  describe('with texts a spreadsheet cannot hold in the metadata', () => {
    const hostile = divisionDirectory([
      {
        ...division(20, 'EXT\u0000-20', [manager(4, 'Ol\uFFFEga', 'Petrova\uD800', 'op')]),
        name: 'North\uFFFF',
      },
      { ...division(21, 'EXT-21'), name: 'South\u007F' },
    ]);

    it('replaces each character with U+FFFD, once, in the directory', () => {
      expect(hostile.get(20)).toEqual({
        name: 'North\uFFFD',
        externalId: 'EXT\uFFFD-20',
        managers: 'Ol\uFFFDga Petrova\uFFFD <op>',
        textReplaced: true,
      });
      // Only the name changed, and no row carries the directory's name.
      expect(hostile.get(21)).toMatchObject({ name: 'South\uFFFD', textReplaced: false });
    });

    it('flags a row that carries a replaced text text_replaced, once, after its other flags', () => {
      const r = record(20);
      enrichShift(r, hostile);
      expect([r.divisionExternalId, r.qualityFlags]).toEqual(['EXT\uFFFD-20', 'text_replaced']);
      const flagged = enrichShift(
        recordOf(shiftRow({ division_id: 20, duration: 1, comment: '\u0000' })),
        hostile,
      );
      expect(flagged.qualityFlags).toBe('duration_mismatch;text_replaced');
      const clean = record(21);
      enrichShift(clean, hostile);
      expect(clean.qualityFlags).toBe('');
    });
  });
});
