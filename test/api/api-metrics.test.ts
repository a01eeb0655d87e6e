import { describe, expect, it } from 'vitest';
import { histogramText } from '../../src/api/api-metrics.js';
import { DURATION_BUCKETS_SECONDS } from '../../src/queue/export-metrics.js';

describe('histogramText', () => {
  it('writes cumulative buckets, +Inf, sum and count in the Prometheus text format', () => {
    const buckets = DURATION_BUCKETS_SECONDS.map((b) => (b >= 30 ? 2 : b >= 5 ? 1 : 0));
    const text = histogramText({
      counters: {
        exports_completed: 2,
        exports_failed: 0,
        rows_fetched: 0,
        rows_exported: 0,
        rows_rejected: 0,
        upstream_retries: 0,
        upstream_wire_bytes: 0,
        upstream_decoded_bytes: 0,
        notifications_delivered: 0,
        notification_attempts_failed: 0,
        notifications_abandoned: 0,
        mail_messages_sent: 0,
        mail_messages_refused: 0,
        mail_deliveries_failed: 0,
      },
      duration: { buckets: [...buckets, 2], sumSeconds: 24.5, count: 2 },
    });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^# HELP shift_export_export_duration_seconds /);
    expect(lines[1]).toBe('# TYPE shift_export_export_duration_seconds histogram');
    expect(lines).toContain('shift_export_export_duration_seconds_bucket{le="1"} 0');
    expect(lines).toContain('shift_export_export_duration_seconds_bucket{le="5"} 1');
    expect(lines).toContain('shift_export_export_duration_seconds_bucket{le="30"} 2');
    expect(lines.slice(-3)).toEqual([
      'shift_export_export_duration_seconds_bucket{le="+Inf"} 2',
      'shift_export_export_duration_seconds_sum 24.5',
      'shift_export_export_duration_seconds_count 2',
    ]);
  });
});
