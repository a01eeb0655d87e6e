// What the worker process is given: its Redis connection and settings, the export definitions and
// how to load them again, and the notification settings. The composition root (worker.ts) and the
// notification side (worker-notifications.ts) read it.

import type { Job } from 'bullmq';
import type { ConnectedWfmConfig } from '../src/config/wfm-config.js';
import type { ExportConfig } from '../src/config/export-config.js';
import type { NotifyConfig } from '../src/config/notify-config.js';
import type { QueueConfig } from '../src/config/queue-config.js';
import type { QueueTuning } from '../src/config/queue-tuning.js';
import type { S3Config } from '../src/config/s3-config.js';
import type { ScheduleConfig } from '../src/config/schedule-config.js';
import type { SmtpConfig } from '../src/config/smtp-config.js';
import type { ExportDefinitions } from '../src/definitions/export-definition.js';
import type { DefinitionsResult } from '../src/definitions/load-export-definitions.js';
import type { Logger } from '../src/logger.js';
import type { MailSettings } from '../src/notify/mail-recipients.js';
import type { RedisClient } from '../src/queue/redis-connection.js';

export interface ExportWorkerOptions {
  /** A worker-role connection (maxRetriesPerRequest: null); the worker closes it when it stops. */
  readonly connection: RedisClient;
  readonly queueConfig: QueueConfig;
  readonly tuning: QueueTuning;
  readonly schedule: ScheduleConfig;
  /**
   * The export definitions loaded at start (requireExportDefinitions: a bad file never gets this
   * far), and how to load them again on reloadDefinitions.
   */
  readonly definitions: {
    readonly initial: ExportDefinitions;
    readonly load: () => Promise<DefinitionsResult>;
  };
  readonly exportConfig: ExportConfig;
  readonly wfm: ConnectedWfmConfig;
  readonly s3Config: () => S3Config;
  readonly logger: Logger;
  /** Smallest time between two progress writes of a job (default 1000 ms). */
  readonly progressIntervalMs?: number;
  /** Webhooks (NOTIFY_*); absent or without URLs: no notifications. */
  readonly notify?: {
    readonly config: NotifyConfig;
    /** Values of secret-named variables, scrubbed from failure messages. */
    readonly knownSecrets: readonly string[];
    /** SMTP_* (e-mail of definitions with `deliver.email`); absent or without SMTP_URL: no e-mail. */
    readonly smtp?: SmtpConfig;
    /**
     * The `deliver.email` of the definition an export job ran for; undefined: the export sends no
     * e-mail. Default: the job's `export` looked up in the definitions in force (definition-delivery.ts).
     */
    readonly mailSettingsOf?: (
      job: Job,
    ) => { readonly definition: string; readonly email: MailSettings } | undefined;
  };
}
