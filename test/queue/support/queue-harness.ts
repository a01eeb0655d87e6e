// Everything a queue integration test needs on top of a real redis-server and a sandbox: configs
// built from env-like records (so they go through the same zod loaders as production), a producer,
// an in-process worker with short intervals, a capturing logger, and one stop() for all of it.
// Each harness has its own queue prefix, removed at the end.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Job, QueueEvents } from 'bullmq';
import { loadExportConfig, type ExportConfig } from '../../../src/config/export-config.js';
import { loadNotifyConfig } from '../../../src/config/notify-config.js';
import { loadQueueConfig, type QueueConfig } from '../../../src/config/queue-config.js';
import { loadS3Config } from '../../../src/config/s3-config.js';
import { loadScheduleConfig, type ScheduleConfig } from '../../../src/config/schedule-config.js';
import { loadSmtpConfig } from '../../../src/config/smtp-config.js';
import type { MailSettings } from '../../../src/notify/mail-recipients.js';
import { loadWfmConfig, requireUpstream } from '../../../src/config/wfm-config.js';
import { createLogger, type Logger } from '../../../src/logger.js';
import { openProducer, type Producer } from '../../../src/queue/producer.js';
import { loadQueueTuning, type QueueTuning } from '../../../src/config/queue-tuning.js';
import { connectRedis } from '../../../src/queue/redis-connection.js';
import { startExportWorker, type RunningExportWorker } from '../../../jobs/worker.js';
import {
  loadExportDefinitions,
  requireExportDefinitions,
} from '../../../src/definitions/load-export-definitions.js';
import { currentLeakScope, inLeakScope } from '../../support/leak-guard.js';
import { secretValuesOf } from '../../../src/redact-secrets.js';
import { removeKeys, testPrefix } from '../../support/redis-server.js';

export interface LogLine {
  readonly level: number;
  readonly msg?: string;
  readonly [key: string]: unknown;
}

/** A pino logger whose lines are kept, parsed, for assertions. */
export function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString('utf8').split('\n'))
        if (text.trim() !== '') lines.push(JSON.parse(text) as LogLine);
      callback();
    },
  });
  return { logger: createLogger({ level: 'debug', destination: sink }), lines };
}

export interface HarnessOptions {
  readonly redisUrl: string;
  readonly sandboxUrl: string;
  readonly wfmToken?: string;
  /** Extra env for the config loaders (JOB_ATTEMPTS, NIGHTLY_TZ, ...). */
  readonly env?: Record<string, string>;
  /** The `deliver.email` of an export job's definition (what the definitions wiring resolves). */
  readonly mailSettingsOf?: (
    job: Job,
  ) => { readonly definition: string; readonly email: MailSettings } | undefined;
}

export interface Harness {
  readonly prefix: string;
  readonly dest: string;
  readonly env: Record<string, string>;
  readonly queueConfig: QueueConfig;
  readonly exportConfig: ExportConfig;
  readonly schedule: ScheduleConfig;
  readonly tuning: QueueTuning;
  readonly producer: Producer;
  readonly logs: LogLine[];
  readonly logger: Logger;
  /** Starts an in-process worker (stopped by stop()). */
  startWorker(): Promise<RunningExportWorker>;
  events(): Promise<QueueEvents>;
  stop(): Promise<void>;
}

/** For tests where another worker takes over a dead worker's job: a short lock, checked often. */
export const QUICK_TAKEOVER_ENV = {
  WORKER_LOCK_DURATION_MS: '2000',
  WORKER_STALLED_INTERVAL_MS: '1000',
} as const;

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const prefix = testPrefix();
  const dest = mkdtempSync(join(tmpdir(), 'queue-int-'));
  const env: Record<string, string> = {
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: prefix,
    JOB_ATTEMPTS: '3',
    JOB_BACKOFF_MS: '50',
    SHUTDOWN_GRACE_MS: '5000',
    // Long enough that a CI machine pausing a worker for a few seconds does not stall its job (a
    // stall re-runs it: a second attempt no test expects); tests of a takeover use QUICK_TAKEOVER_ENV.
    WORKER_LOCK_DURATION_MS: '8000',
    WORKER_STALLED_INTERVAL_MS: '4000',
    REDIS_CONNECT_TIMEOUT_MS: '3000',
    NIGHTLY_ENABLED: 'false',
    EXPORT_DEST: dest,
    EXPORT_FORMATS: 'csv',
    WFM_BASE_URL: options.sandboxUrl,
    WFM_TOKEN: options.wfmToken ?? 'sandbox-admin',
    WFM_RETRY_ATTEMPTS: '1',
    WFM_RETRY_BASE_DELAY_MS: '10',
    ...options.env,
  };
  const queueConfig = loadQueueConfig(env);
  const exportConfig = loadExportConfig(env);
  const schedule = loadScheduleConfig(env);
  const tuning = loadQueueTuning(env);
  const { logger, lines } = capturingLogger();
  // What the harness opens later (a worker, QueueEvents, the FlowProducer) lives as long as it does.
  const scope = currentLeakScope();
  const opened = await openProducer({ config: queueConfig, tuning, logger });
  const producer: Producer = {
    ...opened,
    flows: () => inLeakScope(scope, () => opened.flows()),
    events: () => inLeakScope(scope, () => opened.events()),
  };
  const workers: RunningExportWorker[] = [];
  return {
    prefix,
    dest,
    env,
    queueConfig,
    exportConfig,
    schedule,
    tuning,
    producer,
    logs: lines,
    logger,
    startWorker: () => inLeakScope(scope, startWorker),
    events: () => producer.events(),
    async stop() {
      for (const w of workers) await w.stop('test over');
      await producer.close();
      await removeKeys(options.redisUrl, prefix);
      rmSync(dest, { recursive: true, force: true });
    },
  };

  async function startWorker(): Promise<RunningExportWorker> {
    // Before Redis, as the worker command does: a bad file opens nothing.
    const initial = await requireExportDefinitions({ schedule, exportConfig });
    const connection = await connectRedis(queueConfig.redis, {
      role: 'worker',
      connectTimeoutMs: 3000,
      logger,
    });
    const load = () => loadExportDefinitions({ schedule, exportConfig });
    const worker = await startExportWorker({
      connection,
      queueConfig,
      tuning,
      schedule,
      definitions: { initial, load },
      exportConfig,
      wfm: requireUpstream(loadWfmConfig(env)),
      s3Config: () => loadS3Config(env),
      logger,
      progressIntervalMs: 100,
      notify: {
        config: loadNotifyConfig(env),
        knownSecrets: secretValuesOf(env),
        smtp: loadSmtpConfig(env),
        ...(options.mailSettingsOf === undefined ? {} : { mailSettingsOf: options.mailSettingsOf }),
      },
    });
    workers.push(worker);
    return worker;
  }
}
