import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EmailDelivery } from '../../src/definitions/export-definition.js';
import { isPlainAddress } from '../../src/domain/mail-address.js';
import {
  composeMessage,
  escapeHtml,
  filesOfMessage,
  type MailManifest,
} from '../../src/notify/mail-message.js';
import { changedEnough, messageKey, planMail } from '../../src/notify/mail-plan.js';
import {
  DIVISION_MANAGERS_TO,
  displayName,
  mailRecipients,
  type MailDivision,
  type MailSettings,
} from '../../src/notify/mail-recipients.js';
import { DIVISION_MANAGERS } from '../../src/definitions/export-definition.js';

type Manager = NonNullable<MailDivision['dirs']>[number];

const manager = (id: number, login: string, extra: Partial<Manager> = {}): Manager => ({
  id,
  login,
  firstName: `First${id}`,
  lastName: `Last${id}`,
  active: true,
  inviteAccepted: true,
  ...extra,
});

const HOSTILE = 'a@b.c\r\nBcc: x@evil.example';

const divisions: MailDivision[] = [
  {
    id: 1,
    name: 'North',
    dirs: [
      manager(11, 'anna@north.example', { firstName: 'Анна\r\nBcc: x@evil.example', lastName: 'Ivanova' }),
      manager(12, 'off@north.example', { active: false }),
      manager(13, 'pending@north.example', { inviteAccepted: false }),
      manager(14, 'just-a-login'),
      manager(15, HOSTILE),
    ],
  },
  { id: 2, name: 'South <b>&', dirs: [manager(21, 'sam@south.example'), manager(22, 'SAM@south.example')] },
  { id: 3, name: 'East', dirs: [manager(31, 'x', { active: false })] },
];

const file = (path: string, division: number | null, bytes = 100) => ({
  name: path.split('/').pop() ?? path,
  path,
  bytes,
  rows: 3,
  content_type: 'application/octet-stream',
  ...(division === null ? {} : { division_id: division }),
});

const manifest: MailManifest = {
  export_id: 'exp-1',
  period: { from: '2026-11-16', to: '2026-11-22' },
  counts: { exported: 30, rejected: 1 },
  statistics: { start_match_rate: 0.9, finish_match_rate: 0.8, hours: 240 },
  files: [
    file('rejected.csv', null),
    file('divisions/1/shifts.xlsx', 1),
    file('divisions/1/shifts.csv', 1),
    file('divisions/2/shifts.xlsx', 2),
    file('divisions/3/shifts.xlsx', 3),
    file('row-hashes.bin', null),
  ],
  divisions: [
    { division_id: 1, division_name: 'North', shifts: 10, changed: true },
    { division_id: 2, division_name: 'South <b>&', shifts: 15, changed: false },
    { division_id: 3, division_name: 'East', shifts: 5, changed: null },
  ],
};

describe('the settings of deliver.email', () => {
  it('are what the definitions loader returns', () => {
    // A compile-time check as much as a run-time one: the loader's type is delivery's input.
    const loaded: EmailDelivery = {
      to: DIVISION_MANAGERS,
      cc: [],
      attach: ['xlsx'],
      when: 'changed',
      lang: 'en',
    };
    const settings: MailSettings = loaded;
    expect(settings.to).toBe(DIVISION_MANAGERS_TO);
  });
});

describe('mailRecipients', () => {
  it('sends to active managers who accepted the invitation and whose login is an address; lists the others with the reason', () => {
    const { groups, skipped } = mailRecipients(
      { to: 'division-managers', cc: ['ops@example.com'] },
      [1, 2, 3, 4],
      divisions,
    );
    expect(groups.map((g) => [g.division_id, g.to.map((r) => r.address)])).toEqual([
      [1, ['anna@north.example']],
      [2, ['sam@south.example']],
    ]);
    expect(groups[0]?.cc).toEqual([{ address: 'ops@example.com', name: undefined }]);
    expect(skipped.map((s) => [s.division_id, s.manager_id, s.reason])).toEqual([
      [1, 12, 'inactive'],
      [1, 13, 'invite_not_accepted'],
      [1, 14, 'login_not_an_address'],
      [1, 15, 'login_not_an_address'],
      [3, 31, 'inactive'],
      [3, null, 'no_recipient'],
      [4, null, 'division_not_found'],
    ]);
  });

  it('skips a hostile login and shows it with its line break escaped', () => {
    const { skipped } = mailRecipients({ to: 'division-managers', cc: [] }, [1], divisions);
    const hostile = skipped.find((s) => s.manager_id === 15);
    expect(hostile?.reason).toBe('login_not_an_address');
    expect(hostile?.login).toBe('a@b.c\\r\\nBcc: x@evil.example');
    expect(hostile?.login).not.toMatch(/[\r\n]/);
  });

  it('takes line breaks out of display names and keeps non-Latin letters', () => {
    const { groups } = mailRecipients({ to: 'division-managers', cc: [] }, [1], divisions);
    expect(groups[0]?.to[0]?.name).toBe('Анна Bcc: x@evil.example Ivanova');
  });

  it('sends one message to a list of addresses, with cc de-duplicated against to', () => {
    const { groups, skipped } = mailRecipients(
      { to: ['a@example.com', 'A@example.com', 'bad address'], cc: ['a@example.com', 'c@example.com'] },
      [1, 2],
      [],
    );
    expect(groups).toEqual([
      {
        division_id: null,
        to: [{ address: 'a@example.com', name: undefined }],
        cc: [{ address: 'c@example.com', name: undefined }],
      },
    ]);
    expect(skipped.map((s) => s.reason)).toEqual(['not_an_address']);
  });
});

describe('header safety', () => {
  it('never lets a control character through a display name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const name = displayName(text);
        // eslint-disable-next-line no-control-regex -- looking for control characters is the point
        return name === undefined || !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name);
      }),
    );
  });

  it('accepts no address with a space, line break or control character, nor a second @', () => {
    fc.assert(
      fc.property(
        fc.emailAddress(),
        fc.constantFrom('\r', '\n', '\r\n', ' ', '\t', '\u0000', '@', ',', '<', '"'),
        fc.nat(),
        (address, bad, at) => {
          const i = at % (address.length + 1);
          return !isPlainAddress(address.slice(0, i) + bad + address.slice(i));
        },
      ),
    );
    expect(isPlainAddress('anna@north.example')).toBe(true);
    expect(isPlainAddress(HOSTILE)).toBe(false);
  });

  it('writes subjects on one line and escapes names in the HTML, whatever the division is called', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (name) => {
        const { subject, html } = composeMessage({
          definition: 'weekly',
          manifest,
          division: { division_id: 7, division_name: name, shifts: 1, changed: true },
          files: [],
        });
        return (!/[\r\n]/.test(subject) && !html.includes(`<b>${name}`)) || name === '';
      }),
    );
    const { html, subject } = composeMessage({
      definition: 'weekly',
      manifest,
      division: { division_id: 2, division_name: '<script>x</script>', shifts: 15, changed: true },
      files: [],
    });
    expect(html).not.toContain('<script>');
    expect(html).toContain(escapeHtml('<script>x</script>'));
    expect(subject).toBe('weekly: <script>x</script> (2), 2026-11-16 to 2026-11-22 (15 shifts)');
  });
});

describe('planMail', () => {
  it("gives each division's message only that division's files in the attached formats", () => {
    expect(filesOfMessage(manifest, 1, ['xlsx']).map((f) => f.path)).toEqual(['divisions/1/shifts.xlsx']);
    expect(filesOfMessage(manifest, 1, ['xlsx', 'csv']).map((f) => f.path)).toEqual([
      'divisions/1/shifts.xlsx',
      'divisions/1/shifts.csv',
    ]);
    expect(filesOfMessage(manifest, null, ['csv']).map((f) => f.path)).toEqual([
      'rejected.csv',
      'divisions/1/shifts.csv',
    ]);
  });

  it('with when: changed, holds back the divisions whose rows did not change', () => {
    const plan = planMail(
      { to: 'division-managers', cc: [], attach: ['xlsx'], when: 'changed', lang: 'en' },
      manifest,
      divisions,
    );
    expect(plan.messages.map((m) => m.division_id)).toEqual([1]);
    expect(plan.unchanged).toEqual([2]);
    const always = planMail(
      { to: 'division-managers', cc: [], attach: ['xlsx'], when: 'always', lang: 'en' },
      manifest,
      divisions,
    );
    expect(always.messages.map((m) => [m.division_id, m.files.map((f) => f.path)])).toEqual([
      [1, ['divisions/1/shifts.xlsx']],
      [2, ['divisions/2/shifts.xlsx']],
    ]);
  });

  it('counts a first export and an unknown change as changed', () => {
    expect(changedEnough('changed', {}, null)).toBe(true);
    expect(changedEnough('changed', { changes: null }, null)).toBe(true);
    expect(changedEnough('changed', { changes: { added: 0, removed: 0, changed: 0 } }, null)).toBe(false);
    expect(changedEnough('changed', { changes: { added: 0, removed: 1, changed: 0 } }, null)).toBe(true);
    expect(changedEnough('changed', { divisions: [] }, 9)).toBe(true);
  });

  it('keys a message by export, division and recipient set, whatever their order and case', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.emailAddress(), { minLength: 1, maxLength: 5 }), (addresses) => {
        const key = messageKey('exp-1', 3, addresses);
        return (
          key ===
            messageKey(
              'exp-1',
              3,
              [...addresses].reverse().map((a) => a.toUpperCase()),
            ) &&
          key !== messageKey('exp-2', 3, addresses) &&
          key !== messageKey('exp-1', 4, addresses) &&
          /^[0-9a-f]{32}$/.test(key)
        );
      }),
    );
  });
});
