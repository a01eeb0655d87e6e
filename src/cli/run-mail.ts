// The e-mail of `shift-export run --export NAME` for a definition with `deliver.email`: sent in this
// process right after the export published — a cron job has no queue to leave a retry to. Like the
// run's webhooks (deliver-now.ts) it makes a few quick attempts within a hard bound, remembers
// in memory what the server accepted so an attempt never sends a message twice, and never changes
// the run's result or exit code: a message not sent is a warning (and a log line), not a failed run.

import { setTimeout as sleep } from 'node:timers/promises';
import type { NotifyConfig } from '../config/notify-config.js';
import type { S3Config } from '../config/s3-config.js';
import type { SmtpConfig } from '../config/smtp-config.js';
import type { ConnectedWfmConfig } from '../config/wfm-config.js';
import { describeError } from '../errors.js';
import type { ExportResult } from '../export/run-export.js';
import type { Logger } from '../logger.js';
import { deliverExportMail, type MailDeliveryReport } from '../notify/deliver-export-mail.js';
import { openExportFiles } from '../notify/export-files.js';
import type { MailManifest } from '../notify/mail-message.js';
import { divisionsOfExport } from '../notify/mail-plan.js';
import { DIVISION_MANAGERS_TO, type MailDivision, type MailSettings } from '../notify/mail-recipients.js';
import { memorySentLog } from '../notify/mail-sent-log.js';
import { smtpSender } from '../notify/smtp-sender.js';
import { WfmClient } from '../wfm/wfm-client.js';
import type { CliIo } from './command.js';
import {
  deliverNow,
  RUN_NOTIFY_ATTEMPTS,
  RUN_NOTIFY_DEADLINE_MS,
  RUN_NOTIFY_FIRST_DELAY_MS,
} from '../notify/deliver-now.js';
import { exportDeliveryFailedEvent } from '../notify/notify-event.js';
import { webhookTargets } from '../notify/webhook-target.js';

export interface RunMailOptions {
  readonly definition: string;
  readonly email: MailSettings;
  readonly smtp: SmtpConfig;
  /** NOTIFY_*: link lifetime, and the webhooks that hear of export.delivery_failed. */
  readonly notifyConfig: NotifyConfig;
  /** The definition's own webhooks (`deliver.webhook`), beside NOTIFY_WEBHOOK_URL. */
  readonly webhooks?: readonly string[];
  /** The export's destination root. */
  readonly dest: string;
  readonly s3Config: () => S3Config;
  /** The upstream, for the divisions' managers (`to: division-managers`). */
  readonly wfm: ConnectedWfmConfig;
  readonly logger: Logger;
  readonly io: CliIo;
  readonly attempts?: number;
  readonly firstDelayMs?: number;
  readonly deadlineMs?: number;
}

/**
 * Sends the e-mail of the export `result`; resolves with the last attempt's report, or undefined
 * when nothing could be tried (SMTP_URL unset, the upstream's divisions unreadable). Never throws.
 */
export async function deliverRunMail(
  result: Pick<ExportResult, 'manifest' | 'location'>,
  options: RunMailOptions,
): Promise<MailDeliveryReport | undefined> {
  const { smtp, logger, io } = options;
  const warn = (text: string): void => {
    if (io.stderr.isTTY === true) io.stderr.write(`warning: ${text}\n`);
  };
  if (smtp.server === undefined || smtp.from === undefined) {
    logger.error({ definition: options.definition }, 'delivery e-mail not sent: SMTP_URL is not set');
    warn(`the e-mail of ${options.definition} is not sent: SMTP_URL is not set`);
    return undefined;
  }
  const deadline = AbortSignal.timeout(options.deadlineMs ?? RUN_NOTIFY_DEADLINE_MS);
  const attempts = options.attempts ?? RUN_NOTIFY_ATTEMPTS;
  const firstDelay = options.firstDelayMs ?? RUN_NOTIFY_FIRST_DELAY_MS;
  const manifest: MailManifest = result.manifest;
  const sender = smtpSender(smtp.server);
  const sentLog = memorySentLog();
  let files: Awaited<ReturnType<typeof openExportFiles>> | undefined;
  try {
    let divisions: MailDivision[] = [];
    if (options.email.to === DIVISION_MANAGERS_TO) {
      const client = new WfmClient(options.wfm, { logger });
      try {
        divisions = await client.listDivisions({ ids: divisionsOfExport(manifest), fields: ['dirs'] });
      } finally {
        await client.close();
      }
    }
    files = await openExportFiles({
      dest: options.dest,
      period: manifest.period,
      location: result.location,
      s3Config: options.s3Config,
      expiresSeconds: options.notifyConfig.linkExpiresSeconds,
      logger,
    });
    let report: MailDeliveryReport | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      report = await deliverExportMail({
        definition: options.definition,
        email: options.email,
        manifest,
        divisions,
        files,
        sender,
        sentLog,
        from: smtp.from,
        maxAttachmentBytes: smtp.maxAttachmentBytes,
        logger,
      });
      if (report.pending === 0 || attempt === attempts || deadline.aborted) break;
      try {
        await sleep(firstDelay * 2 ** (attempt - 1), undefined, { signal: deadline });
      } catch {
        break;
      }
    }
    const notSent = (report?.messages ?? []).filter((m) => m.status === 'failed' || m.status === 'refused');
    const urls = [...options.notifyConfig.webhookUrls, ...(options.webhooks ?? [])];
    if (report !== undefined && notSent.length > 0 && urls.length > 0)
      await deliverNow(
        exportDeliveryFailedEvent(
          {
            definition: options.definition,
            period: manifest.period,
            exportId: manifest.export_id,
            attempts: attempts,
            messages: notSent.map((m) => ({
              division_id: m.division_id,
              recipients: m.recipients,
              status: m.status === 'refused' ? 'refused' : 'failed',
              reason: m.reason ?? m.status,
            })),
          },
          { jobId: null, now: new Date() },
        ),
        webhookTargets(urls),
        { secret: options.notifyConfig.secret, timeoutMs: options.notifyConfig.timeoutMs, logger },
      );
    for (const m of notSent)
      warn(
        `the e-mail of ${options.definition} to ${m.division_id === null ? 'its recipients' : `division ${m.division_id}`} was not sent: ${m.reason ?? m.status}`,
      );
    return report;
  } catch (error) {
    logger.error(
      { definition: options.definition, reason: describeError(error) },
      'delivery e-mail not sent',
    );
    warn(`the e-mail of ${options.definition} is not sent: ${describeError(error)}`);
    return undefined;
  } finally {
    files?.close();
    sender.close();
  }
}
