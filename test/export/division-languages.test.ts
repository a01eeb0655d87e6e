import { describe, expect, it } from 'vitest';
import { divisionLanguages } from '../../src/export/division-languages.js';

const manager = (lang: unknown, more: Record<string, unknown> = {}) =>
  ({
    id: 1,
    active: true,
    inviteAccepted: true,
    login: 'a@example.com',
    firstName: 'A',
    lastName: 'B',
    lang,
    ...more,
  }) as never;

describe('divisionLanguages', () => {
  it("gives each division the languages its mailed managers read beside the export's, in catalog order", () => {
    const languages = divisionLanguages(
      [
        { id: 1, dirs: [manager('de_DE'), manager('ru_RU'), manager('pt_PT')] },
        { id: 2, dirs: [manager('ru_RU'), manager('en_GB')] },
        { id: 3, dirs: [manager('kk_KZ'), manager('en\r\nBcc: x@example.com'), manager(null)] },
      ],
      'ru',
    );
    expect([...languages]).toEqual([
      [1, ['de', 'pt-BR']],
      [2, ['en']],
    ]);
  });

  it('leaves out the managers no mail goes to', () => {
    const languages = divisionLanguages(
      [
        {
          id: 7,
          dirs: [
            manager('de_DE', { active: false }),
            manager('pt_BR', { inviteAccepted: false }),
            manager('ru_RU', { login: 'not an address' }),
          ],
        },
      ],
      'en',
    );
    expect(languages.size).toBe(0);
  });
});
