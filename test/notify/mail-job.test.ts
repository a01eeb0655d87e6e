import { describe, expect, it } from 'vitest';
import { mailJobData, mailJobDataSchema, type PublishedForMail } from '../../src/notify/mail-job.js';

const published: PublishedForMail = {
  definition: 'weekly',
  email: { to: 'division-managers', cc: ['ops@example.com'], attach: ['xlsx'], when: 'changed', lang: 'de' },
  exportId: 'exp-1',
  period: { from: '2026-11-09', to: '2026-11-15' },
  dest: '/srv/exports/weekly',
  location: '/srv/exports/weekly/2026-11-09_2026-11-15',
};

describe('the data of an e-mail job', () => {
  it("carries the definition's language as it was when the export ran", () => {
    const data = mailJobData(published);
    expect(data.email.lang).toBe('de');
    expect(mailJobDataSchema.parse(JSON.parse(JSON.stringify(data)))).toEqual(data);
  });

  it('reads a job queued before the report languages as English, the language it was queued in', () => {
    const { lang: _, ...older } = mailJobData(published).email;
    const data = mailJobDataSchema.parse({ ...mailJobData(published), email: older });
    expect(data.email.lang).toBe('en');
  });

  it('refuses a language without a catalog', () => {
    const data = mailJobData(published);
    expect(mailJobDataSchema.safeParse({ ...data, email: { ...data.email, lang: 'kk' } }).success).toBe(
      false,
    );
  });
});
