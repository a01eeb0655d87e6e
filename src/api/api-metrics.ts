// GET /metrics: Prometheus text built at scrape time from what is shared in Redis — job counts by
// state from the queue itself, and the counters and duration histogram that workers add to
// (src/queue/export-metrics.ts). So every API replica reports the same figures, whichever worker
// did the work, and nothing is lost when a process restarts. Counters and gauges go through a
// prom-client Registry; the histogram's cumulative buckets are stored as such in Redis and written
// out in the exposition format directly (prom-client has no way to set a histogram's buckets).

import type { Queue } from 'bullmq';
import type { RedisClient } from '../queue/redis-connection.js';
import { Counter, Gauge, Registry } from 'prom-client';
import {
  DURATION_BUCKETS_SECONDS,
  readExportMetrics,
  type CounterField,
  type ExportMetricsSnapshot,
} from '../queue/export-metrics.js';

export const JOB_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'completed',
  'failed',
] as const;

const PREFIX = 'shift_export_';
const DURATION = `${PREFIX}export_duration_seconds`;

const COUNTERS: readonly { readonly field: CounterField; readonly name: string; readonly help: string }[] = [
  {
    field: 'exports_completed',
    name: `${PREFIX}exports_completed_total`,
    help: 'Exports completed and published.',
  },
  {
    field: 'exports_failed',
    name: `${PREFIX}export_attempts_failed_total`,
    help: 'Export attempts that failed (retried or not).',
  },
  {
    field: 'rows_fetched',
    name: `${PREFIX}rows_fetched_total`,
    help: 'Report rows received from the WFM API by completed exports.',
  },
  {
    field: 'rows_exported',
    name: `${PREFIX}rows_exported_total`,
    help: 'Shift rows written by completed exports.',
  },
  {
    field: 'rows_rejected',
    name: `${PREFIX}rows_rejected_total`,
    help: 'Report rows rejected as invalid by completed exports.',
  },
  {
    field: 'upstream_retries',
    name: `${PREFIX}upstream_retries_total`,
    help: 'Retries of WFM API requests (network errors, timeouts, 408/429/5xx).',
  },
  {
    field: 'upstream_wire_bytes',
    name: `${PREFIX}upstream_received_bytes_total`,
    help: 'Bytes of WFM API response bodies received on the wire, compressed when the upstream compressed (every export attempt).',
  },
  {
    field: 'upstream_decoded_bytes',
    name: `${PREFIX}upstream_decoded_bytes_total`,
    help: 'The same response bodies once decoded: the JSON read (equal to the received bytes without compression).',
  },
  {
    field: 'notifications_delivered',
    name: `${PREFIX}notifications_delivered_total`,
    help: 'Webhook notifications a receiver answered with 2xx (NOTIFY_WEBHOOK_URL, sent by workers).',
  },
  {
    field: 'notification_attempts_failed',
    name: `${PREFIX}notification_attempts_failed_total`,
    help: 'Webhook delivery attempts that failed (network, timeout, non-2xx), retried or not.',
  },
  {
    field: 'notifications_abandoned',
    name: `${PREFIX}notifications_abandoned_total`,
    help: 'Webhook notifications given up: attempts used up, a 4xx answer, or a receiver no longer configured.',
  },
  {
    field: 'mail_messages_sent',
    name: `${PREFIX}mail_messages_sent_total`,
    help: 'Delivery e-mails (deliver.email) the SMTP server accepted.',
  },
  {
    field: 'mail_messages_refused',
    name: `${PREFIX}mail_messages_refused_total`,
    help: 'Delivery e-mails the SMTP server refused for good (5xx for every recipient); recorded, not retried.',
  },
  {
    field: 'mail_deliveries_failed',
    name: `${PREFIX}mail_deliveries_failed_total`,
    help: 'E-mail deliveries of an export that ended with a message not sent (each raised export.delivery_failed).',
  },
];

export interface MetricsSource {
  readonly queue: Queue;
  readonly redis: RedisClient;
  readonly prefix: string;
}

export class ApiMetrics {
  readonly registry = new Registry();
  readonly #jobs: Gauge<'state'>;
  readonly #counters: readonly { readonly field: CounterField; readonly metric: Counter }[];

  constructor() {
    this.#jobs = new Gauge({
      name: `${PREFIX}jobs`,
      help: 'Jobs of the queue by state (exports, nightly runs, backfills).',
      labelNames: ['state'],
      registers: [this.registry],
    });
    this.#counters = COUNTERS.map((c) => ({
      field: c.field,
      metric: new Counter({ name: c.name, help: c.help, registers: [this.registry] }),
    }));
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text of the current figures. */
  async render(source: MetricsSource): Promise<string> {
    const [counts, snapshot] = await Promise.all([
      source.queue.getJobCounts(...JOB_STATES),
      readExportMetrics(source.redis, source.prefix),
    ]);
    for (const state of JOB_STATES) this.#jobs.set({ state }, counts[state] ?? 0);
    for (const { field, metric } of this.#counters) {
      metric.reset();
      metric.inc(snapshot.counters[field]);
    }
    return `${await this.registry.metrics()}\n${histogramText(snapshot)}`;
  }
}

function number(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(6)));
}

export function histogramText(snapshot: ExportMetricsSnapshot): string {
  const { buckets, sumSeconds, count } = snapshot.duration;
  const lines = [
    `# HELP ${DURATION} Duration of completed exports, from start to published manifest.`,
    `# TYPE ${DURATION} histogram`,
  ];
  DURATION_BUCKETS_SECONDS.forEach((bound, i) =>
    lines.push(`${DURATION}_bucket{le="${bound}"} ${number(buckets[i] ?? 0)}`),
  );
  lines.push(
    `${DURATION}_bucket{le="+Inf"} ${number(count)}`,
    `${DURATION}_sum ${number(sumSeconds)}`,
    `${DURATION}_count ${number(count)}`,
  );
  return `${lines.join('\n')}\n`;
}
