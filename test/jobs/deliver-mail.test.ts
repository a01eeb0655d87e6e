// What an e-mail job delivers when the published export of its period is not the one it was
// queued for: the export that directly replaced it, when the job knows its export job (the same
// export job run again after its worker died, or another export before this mail went), judged as
// changed; otherwise nothing, the later export's own mail going instead.

import { describe, expect, it } from 'vitest';
import { whatToDeliver } from '../../jobs/deliver-mail.js';
import { mailJobData, mailJobId, type MailJobData } from '../../src/notify/mail-job.js';
import type { MailManifest } from '../../src/notify/mail-message.js';

const data: MailJobData = mailJobData({
  definition: 'weekly',
  email: { to: ['hq@example.com'], cc: [], attach: ['csv'], when: 'changed', lang: 'en' },
  exportId: 'first',
  exportRun: 'sched_weekly_1@1732000000000',
  period: { from: '2026-11-16', to: '2026-11-22' },
  dest: '/srv/exports/weekly',
  location: '/srv/exports/weekly/2026-11-16_2026-11-22',
});

function manifest(exportId: string, previous?: string): MailManifest {
  return {
    export_id: exportId,
    period: { from: '2026-11-16', to: '2026-11-22' },
    counts: { exported: 1, rejected: 0 },
    statistics: {},
    files: [],
    ...(previous === undefined ? {} : { previous: { export_id: previous } }),
  };
}

describe('what an e-mail job delivers', () => {
  it('delivers its own export as asked while that is the published one', () => {
    expect(whatToDeliver(data, manifest('first', 'older'))).toEqual({ email: data.email, instead: false });
  });

  it('delivers the export that directly replaced its own, as changed', () => {
    expect(whatToDeliver(data, manifest('second', 'first'))).toEqual({
      email: { ...data.email, when: 'always' },
      instead: true,
    });
  });

  it('delivers nothing when its export was replaced and replaced again', () => {
    expect(whatToDeliver(data, manifest('third', 'second'))).toBeUndefined();
    expect(whatToDeliver(data, manifest('second'))).toBeUndefined();
  });

  it('keeps the rule of a job queued before the export job was named: a replaced export is not mailed', () => {
    const { export_run: _, ...older } = data;
    expect(whatToDeliver(older, manifest('second', 'first'))).toBeUndefined();
  });
});

describe('the id of an e-mail job', () => {
  it('is the same for every attempt of one run of an export job, whatever export id each published', () => {
    expect(mailJobId({ ...data, export_id: 'second' })).toBe(mailJobId(data));
    expect(mailJobId({ ...data, export_run: 'sched_weekly_1@1732600000000' })).not.toBe(mailJobId(data));
  });

  it('names the export when the job was queued without its export job', () => {
    const { export_run: _, ...older } = data;
    expect(mailJobId(older)).toBe('email.weekly.first');
    expect(mailJobId(data)).toBe('email.weekly.run.sched_weekly_1_1732000000000');
  });
});
