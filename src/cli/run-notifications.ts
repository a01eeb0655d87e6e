// The webhooks of `shift-export run`: after the export has published (or failed), one
// export.published (or export.failed) to every NOTIFY_WEBHOOK_URL — and, for `run --export NAME`,
// to the definition's own `deliver.webhook` URLs, the event naming the definition — sent in this process with a few
// quick retries and a hard bound (src/notify/deliver-now.ts) — a cron job has no queue to leave a
// retry to. The export's result is already final when this runs: a receiver can make the run take
// at most RUN_NOTIFY_DEADLINE_MS longer, never change its output or exit code.

import { randomBytes } from 'node:crypto';
import type { NotifyConfig } from '../config/notify-config.js';
import type { S3Config } from '../config/s3-config.js';
import type { Period } from '../domain/period.js';
import type { ExportResult } from '../export/run-export.js';
import { describeError, isShiftExportError } from '../errors.js';
import type { Logger } from '../logger.js';
import { deliverNow } from '../notify/deliver-now.js';
import { isLocalDestination, withFileLinks } from '../notify/file-links.js';
import { exportFailedEvent, exportPublishedEvent, type NotifyEvent } from '../notify/notify-event.js';
import { webhookTargets } from '../notify/webhook-target.js';
import { exportJobResult } from '../queue/export-job-result.js';
import { redactSecrets } from '../redact-secrets.js';
import type { CliIo } from './command.js';

export interface RunNotifier {
  published(result: ExportResult): Promise<void>;
  failed(error: unknown): Promise<void>;
}

export interface RunNotifierOptions {
  readonly config: NotifyConfig;
  readonly period: Period;
  /** The export's destination root. */
  readonly dest: string;
  readonly s3Config: () => S3Config;
  readonly knownSecrets: readonly string[];
  readonly logger: Logger;
  readonly io: CliIo;
  /** The export definition run (`run --export NAME`), named in every event. */
  readonly definition?: string;
  /** The definition's own webhook URLs (`deliver.webhook`), beside NOTIFY_WEBHOOK_URL. */
  readonly webhooks?: readonly string[];
  readonly now?: () => Date;
}

/** Undefined when neither NOTIFY_WEBHOOK_URL nor the definition names a receiver. */
export function runNotifier(options: RunNotifierOptions): RunNotifier | undefined {
  const { config, logger, io } = options;
  // One URL in both lists is one receiver.
  const urls = [...new Set([...config.webhookUrls, ...(options.webhooks ?? [])])];
  if (urls.length === 0) return undefined;
  const targets = webhookTargets(urls);
  const definition = options.definition;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const send = async (event: NotifyEvent): Promise<void> => {
    const reports = await deliverNow(event, targets, {
      secret: config.secret,
      timeoutMs: config.timeoutMs,
      logger,
    });
    // On a terminal the log is quiet at info: a receiver that was not reached still gets a line.
    if (io.stderr.isTTY === true)
      for (const r of reports.filter((report) => !report.delivered))
        io.stderr.write(
          `warning: ${event.event} notification to ${r.target} not delivered (${r.attempts} attempts)\n`,
        );
  };
  return {
    async published(exported) {
      const result = exportJobResult(exported);
      const local = isLocalDestination(options.dest);
      const event = exportPublishedEvent(result, { jobId: null, now: now(), local, definition });
      await send(
        local
          ? event
          : await withFileLinks(event, {
              dest: options.dest,
              s3Config: options.s3Config,
              expiresSeconds: config.linkExpiresSeconds,
              logger,
            }),
      );
    },
    async failed(error) {
      const at = now();
      const message = isShiftExportError(error) ? error.message : describeError(error);
      await send(
        exportFailedEvent(
          {
            period: options.period,
            code: isShiftExportError(error) ? error.code : 'ERROR',
            message: redactSecrets(message, options.knownSecrets),
            attempts: 1,
            durationMs: at.getTime() - startedAt.getTime(),
            occurrence: `run.${startedAt.getTime()}.${randomBytes(4).toString('hex')}`,
          },
          { jobId: null, now: at, definition },
        ),
      );
    },
  };
}
