// Export metrics shared between processes: workers add to counters in one Redis hash (HINCRBY, so
// many workers on many machines add up, and a restart loses nothing), the API reads the hash when
// Prometheus scrapes /metrics. The hash lives under the queue's prefix, so on Redis Cluster it sits
// in the queue's slot. The duration histogram is kept as cumulative bucket counters, exactly as
// Prometheus exposes a histogram.

import type { RedisClient } from './redis-connection.js';
import { EXPORT_QUEUE_NAME } from './queue-names.js';

/** Upper bounds (seconds) of the export-duration buckets. */
export const DURATION_BUCKETS_SECONDS = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200] as const;

export const COUNTER_FIELDS = [
  'exports_completed',
  'exports_failed',
  'rows_fetched',
  'rows_exported',
  'rows_rejected',
  'upstream_retries',
  'upstream_wire_bytes',
  'upstream_decoded_bytes',
  'notifications_delivered',
  'notification_attempts_failed',
  'notifications_abandoned',
  'mail_messages_sent',
  'mail_messages_refused',
  'mail_deliveries_failed',
] as const;
export type CounterField = (typeof COUNTER_FIELDS)[number];

export interface ExportMetricsSnapshot {
  readonly counters: Readonly<Record<CounterField, number>>;
  readonly duration: {
    /** Cumulative counts per bucket bound, in DURATION_BUCKETS_SECONDS order, then +Inf. */
    readonly buckets: readonly number[];
    readonly sumSeconds: number;
    readonly count: number;
  };
}

export function metricsKey(prefix: string): string {
  return `${prefix}:${EXPORT_QUEUE_NAME}:metrics`;
}

function bucketField(bound: number | '+Inf'): string {
  return `duration_le_${bound}`;
}

export interface ExportOutcome {
  readonly status: 'completed' | 'failed';
  readonly upstreamRetries: number;
  /** Bytes of WFM API bodies the attempt received, on the wire and decoded (failed attempts too). */
  readonly upstreamBytes?: { readonly wire: number; readonly decoded: number };
  /** Of a completed export. */
  readonly durationMs?: number;
  readonly counts?: { readonly fetched: number; readonly exported: number; readonly rejected: number };
}

/** Adds one finished export attempt to the shared counters. */
export async function recordExportOutcome(
  redis: RedisClient,
  prefix: string,
  outcome: ExportOutcome,
): Promise<void> {
  const key = metricsKey(prefix);
  const tx = redis.multi();
  tx.hincrby(key, outcome.status === 'completed' ? 'exports_completed' : 'exports_failed', 1);
  if (outcome.upstreamRetries > 0) tx.hincrby(key, 'upstream_retries', outcome.upstreamRetries);
  if (outcome.upstreamBytes !== undefined) {
    tx.hincrby(key, 'upstream_wire_bytes', outcome.upstreamBytes.wire);
    tx.hincrby(key, 'upstream_decoded_bytes', outcome.upstreamBytes.decoded);
  }
  if (outcome.counts !== undefined) {
    tx.hincrby(key, 'rows_fetched', outcome.counts.fetched);
    tx.hincrby(key, 'rows_exported', outcome.counts.exported);
    tx.hincrby(key, 'rows_rejected', outcome.counts.rejected);
  }
  if (outcome.status === 'completed' && outcome.durationMs !== undefined) {
    const seconds = outcome.durationMs / 1000;
    for (const bound of DURATION_BUCKETS_SECONDS)
      if (seconds <= bound) tx.hincrby(key, bucketField(bound), 1);
    tx.hincrby(key, bucketField('+Inf'), 1);
    tx.hincrbyfloat(key, 'duration_sum_seconds', seconds);
  }
  await tx.exec();
}

export async function readExportMetrics(redis: RedisClient, prefix: string): Promise<ExportMetricsSnapshot> {
  const hash = await redis.hgetall(metricsKey(prefix));
  const num = (field: string): number => {
    const value = Number(hash[field] ?? 0);
    return Number.isFinite(value) ? value : 0;
  };
  const counters = Object.fromEntries(COUNTER_FIELDS.map((f) => [f, num(f)])) as Record<CounterField, number>;
  const buckets = [...DURATION_BUCKETS_SECONDS.map((b) => num(bucketField(b))), num(bucketField('+Inf'))];
  return {
    counters,
    duration: { buckets, sumSeconds: num('duration_sum_seconds'), count: num(bucketField('+Inf')) },
  };
}

/** What became of one webhook delivery attempt (src/notify/, delivered by the worker). */
export type NotificationOutcome = 'delivered' | 'attempt_failed' | 'abandoned';

const NOTIFICATION_FIELDS: Readonly<Record<NotificationOutcome, CounterField>> = {
  delivered: 'notifications_delivered',
  attempt_failed: 'notification_attempts_failed',
  abandoned: 'notifications_abandoned',
};

/** Adds webhook delivery outcomes to the shared counters (an abandoned one also failed its attempt). */
export async function recordNotificationOutcome(
  redis: RedisClient,
  prefix: string,
  outcomes: readonly NotificationOutcome[],
): Promise<void> {
  const tx = redis.multi();
  for (const outcome of outcomes) tx.hincrby(metricsKey(prefix), NOTIFICATION_FIELDS[outcome], 1);
  await tx.exec();
}

/** What became of the e-mail of one export (src/notify/deliver-export-mail.ts, by the worker). */
export interface MailOutcome {
  /** Messages the SMTP server accepted in this attempt. */
  readonly sent: number;
  /** Messages refused for good (5xx) in this attempt. */
  readonly refused: number;
  /** True when the delivery ended with a message not sent (export.delivery_failed). */
  readonly failed: boolean;
}

/** Adds one delivery attempt's e-mail outcome to the shared counters. */
export async function recordMailOutcome(
  redis: RedisClient,
  prefix: string,
  outcome: MailOutcome,
): Promise<void> {
  const key = metricsKey(prefix);
  const tx = redis.multi();
  if (outcome.sent > 0) tx.hincrby(key, 'mail_messages_sent', outcome.sent);
  if (outcome.refused > 0) tx.hincrby(key, 'mail_messages_refused', outcome.refused);
  if (outcome.failed) tx.hincrby(key, 'mail_deliveries_failed', 1);
  await tx.exec();
}
