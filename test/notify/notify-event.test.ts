import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadNotifyConfig } from '../../src/config/notify-config.js';
import {
  backfillCompletedEvent,
  exportFailedEvent,
  exportPublishedEvent,
  FAILURE_MESSAGE_MAX,
  notifyEventSchema,
} from '../../src/notify/notify-event.js';
import { signBody } from '../../src/notify/post-webhook.js';
import { webhookTarget } from '../../src/notify/webhook-target.js';
import type { ExportJobResult } from '../../src/queue/export-job-result.js';

const NOW = new Date('2026-11-24T03:10:00.000Z');

const result = {
  export_id: '20261124T030000Z-0a1b2c3d',
  period: { from: '2026-11-23', to: '2026-11-23' },
  generated_at: '2026-11-24T03:09:58.000Z',
  counts: { fetched: 12_345, exported: 12_000, rejected: 45, duplicates: 0, outside_window: 300, flagged: 7 },
  statistics: { shifts: 12_000, start_match_rate: 0.9234 },
  files: [
    {
      name: 'shifts.csv',
      path: 'shifts.csv',
      bytes: 100,
      sha256: 'a'.repeat(64),
      rows: 12_000,
      content_type: 'text/csv',
    },
  ],
  location: '/data/exports/2026-11-23_2026-11-23',
  manifest_location: '/data/exports/2026-11-23_2026-11-23/manifest.json',
  duration_ms: 3_400,
} as unknown as ExportJobResult;

describe('export.published', () => {
  it('carries period, export id, counts, statistics, files by path and a readable text line', () => {
    const event = exportPublishedEvent(result, { jobId: 'export-x', now: NOW, local: true });
    expect(event).toMatchObject({
      event: 'export.published',
      id: `export.published.${result.export_id}`,
      occurred_at: NOW.toISOString(),
      job_id: 'export-x',
      period: result.period,
      export_id: result.export_id,
      counts: result.counts,
      statistics: result.statistics,
      duration_ms: 3_400,
    });
    expect(event.files).toEqual([
      expect.objectContaining({ name: 'shifts.csv', path: '/data/exports/2026-11-23_2026-11-23/shifts.csv' }),
    ]);
    expect(event.text).toBe(
      'shift-export: 2026-11-23 published — 12,000 rows exported, 45 rejected, start match 92.3% (3.4 s; export 20261124T030000Z-0a1b2c3d)',
    );
    expect(notifyEventSchema.safeParse(event).success).toBe(true);
  });

  it('names its export definition, in a field and in the text; an export of none has no field', () => {
    const named = exportPublishedEvent(result, { jobId: null, now: NOW, local: true, definition: 'weekly' });
    expect(named.definition).toBe('weekly');
    expect(named.text).toMatch(/^shift-export weekly: 2026-11-23 published — /);
    expect('definition' in exportPublishedEvent(result, { jobId: null, now: NOW, local: true })).toBe(false);
    const failed = exportFailedEvent(
      {
        period: result.period,
        code: 'WFM_AUTH',
        message: 'refused',
        attempts: 1,
        durationMs: 1,
        occurrence: 'x.1',
      },
      { jobId: null, now: NOW, definition: 'weekly' },
    );
    expect(failed).toMatchObject({ definition: 'weekly', event: 'export.failed' });
    expect(failed.text).toMatch(/^shift-export weekly: export of 2026-11-23 FAILED after 1 attempt: /);
  });

  it('names S3 files by their key, to be presigned when sent', () => {
    const event = exportPublishedEvent(result, { jobId: null, now: NOW, local: false });
    expect(event.files[0]).toMatchObject({ key: 'shifts.csv' });
    expect(event.files[0]?.path).toBeUndefined();
  });
});

describe('export.failed', () => {
  it('says code and message on one line, cut to a chat-sized length', () => {
    const event = exportFailedEvent(
      {
        period: { from: '2026-11-01', to: '2026-11-07' },
        code: 'WFM_AUTH',
        message: `the WFM API answered 401\n${'x'.repeat(2 * FAILURE_MESSAGE_MAX)}`,
        attempts: 5,
        durationMs: 1200,
        occurrence: 'export-a.1700000000000',
      },
      { jobId: 'export-a', now: NOW },
    );
    expect(event.id).toBe('export.failed.export-a.1700000000000');
    expect(event.error.code).toBe('WFM_AUTH');
    expect(event.error.message.length).toBe(FAILURE_MESSAGE_MAX);
    expect(event.error.message).not.toContain('\n');
    expect(event.text).toMatch(
      /^shift-export: export of 2026-11-01\.\.2026-11-07 FAILED after 5 attempts: WFM_AUTH: the WFM API answered 401 x+…$/,
    );
    expect(event.export_id).toBeNull();
  });
});

describe('backfill.completed', () => {
  it('sums the days', () => {
    const event = backfillCompletedEvent(
      {
        period: { from: '2026-10-01', to: '2026-10-31' },
        formats: ['csv'],
        days: 31,
        totals: { fetched: 2_000_000, exported: 1_999_000, rejected: 1000 },
        indexLocation: 's3://b/p/backfill-2026-10-01_2026-10-31.json',
        durationMs: 60_000,
        occurrence: 'backfill-x.1',
      },
      { jobId: 'backfill-x', now: NOW },
    );
    expect(event.text).toBe(
      'shift-export: backfill of 2026-10-01..2026-10-31 completed — 31 days, 1,999,000 rows exported, 1,000 rejected',
    );
    expect(event.id).toBe('backfill.completed.backfill-x.1');
  });
});

describe('signBody', () => {
  it('is sha256= and the hex HMAC-SHA256 of the raw body (RFC 4231 test case 2)', () => {
    expect(signBody('Jefe', 'what do ya want for nothing?')).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });
});

describe('webhookTarget', () => {
  it('moves credentials into a Basic header and shows only scheme and host', () => {
    const t = webhookTarget('https://hook:s3cr3t@hooks.example.com/services/T0/B0/XYZ');
    expect(t.url).toBe('https://hooks.example.com/services/T0/B0/XYZ');
    expect(t.authorization).toBe(`Basic ${Buffer.from('hook:s3cr3t').toString('base64')}`);
    expect(t.shown).toBe('https://hooks.example.com');
    expect(t.key).toMatch(/^[0-9a-f]{12}$/);
    expect(webhookTarget('https://hooks.example.com/other').key).not.toBe(t.key);
  });
});

describe('NOTIFY_WEBHOOK_URL', () => {
  const error = (env: Record<string, string>): ConfigError => {
    try {
      loadNotifyConfig(env);
    } catch (e) {
      if (e instanceof ConfigError) return e;
      throw e;
    }
    throw new Error('expected a ConfigError');
  };

  it('takes one or more comma-separated URLs; unset means none', () => {
    expect(loadNotifyConfig({}).webhookUrls).toEqual([]);
    expect(
      loadNotifyConfig({ NOTIFY_WEBHOOK_URL: 'https://a.example.com/x , http://127.0.0.1:9/y' }).webhookUrls,
    ).toEqual(['https://a.example.com/x', 'http://127.0.0.1:9/y']);
  });

  it('refuses a URL that is not http(s) in one line naming the variable, credentials and path hidden', () => {
    const e = error({
      NOTIFY_WEBHOOK_URL: 'https://ok.example.com/a,ftp://user:pa55word@files.example.com/secret-path',
    });
    expect(e.toOneLine()).toBe(
      'CONFIG_INVALID: NOTIFY_WEBHOOK_URL is invalid: entry 2 (ftp://***@files.example.com/…) must start with http:// or https://',
    );
    expect(error({ NOTIFY_WEBHOOK_URL: 'hooks.example.com/x' }).message).toMatch(
      /^NOTIFY_WEBHOOK_URL is invalid: its URL is not a URL/,
    );
  });

  it('refuses a short or multi-line secret without showing it', () => {
    const e = error({ NOTIFY_WEBHOOK_URL: 'https://a.example.com/x', NOTIFY_WEBHOOK_SECRET: 'short' });
    expect(e.message).toMatch(/^NOTIFY_WEBHOOK_SECRET is invalid \(\*\*\*\): must be at least 16 characters/);
    expect(e.message).not.toContain('short');
  });
});
