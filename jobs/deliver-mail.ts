// The processor of `email` jobs on the queue `shift-export-notifications`: the e-mail of one
// published export of a definition with `deliver.email`. It reads the published manifest (an export
// of the period published since replaced this one: see whatToDeliver), reads the divisions' managers from the upstream now (`to: division-managers`), and
// calls deliverExportMail with the sent-log in Redis, so an attempt after a send never repeats it.
// Messages that failed for now (SMTP unreachable, 4xx) fail the attempt and BullMQ retries it with
// the queue's backoff (NOTIFY_ATTEMPTS, NOTIFY_BACKOFF_MS); on the last attempt, or when the server
// refused a message for good, export.delivery_failed is raised (webhook and metric). The job's
// result is the report: what was sent, and every recipient left out with the reason.

import { UnrecoverableError, type Job } from 'bullmq';
import type { NotifyConfig } from '../src/config/notify-config.js';
import type { S3Config } from '../src/config/s3-config.js';
import type { SmtpConfig } from '../src/config/smtp-config.js';
import type { ConnectedWfmConfig } from '../src/config/wfm-config.js';
import { describeError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import { deliverExportMail, type MailDeliveryReport } from '../src/notify/deliver-export-mail.js';
import { openExportFiles } from '../src/notify/export-files.js';
import { mailJobDataSchema, type MailJobData } from '../src/notify/mail-job.js';
import type { MailManifest } from '../src/notify/mail-message.js';
import { divisionsOfExport } from '../src/notify/mail-plan.js';
import { DIVISION_MANAGERS_TO, type MailDivision } from '../src/notify/mail-recipients.js';
import { redisSentLog } from '../src/notify/mail-sent-log.js';
import { exportDeliveryFailedEvent, type NotifyEvent } from '../src/notify/notify-event.js';
import type { MailSender } from '../src/notify/smtp-sender.js';
import { parseJobData } from '../src/queue/export-job-data.js';
import { recordMailOutcome } from '../src/queue/export-metrics.js';
import { TransientJobError } from '../src/queue/job-failure.js';
import { writeMailDeliveryRecord } from '../src/queue/mail-delivery-record.js';
import type { RedisClient } from '../src/queue/redis-connection.js';
import { parseManifest } from '../src/render/manifest.js';
import { WfmClient } from '../src/wfm/wfm-client.js';

export interface DeliverMailDeps {
  readonly smtp: SmtpConfig;
  readonly sender: MailSender;
  readonly notifyConfig: Pick<NotifyConfig, 'linkExpiresSeconds'>;
  readonly s3Config: () => S3Config;
  /** The upstream, for the divisions' managers; undefined: `division-managers` cannot be served. */
  readonly wfm: ConnectedWfmConfig | undefined;
  readonly redis: RedisClient;
  readonly prefix: string;
  /** Hands export.delivery_failed to the webhooks (bounded, never throws); absent: none configured. */
  readonly raise?: (event: NotifyEvent) => Promise<void>;
  readonly logger: Logger;
  readonly now?: () => Date;
}

export type DeliverMailResult = MailDeliveryReport | { readonly skipped: string };

/** The upstream's divisions of the export, with their managers. */
async function managersOf(
  wfm: ConnectedWfmConfig,
  ids: readonly number[],
  logger: Logger,
): Promise<MailDivision[]> {
  const client = new WfmClient(wfm, { logger });
  try {
    return await client.listDivisions({ ids, fields: ['dirs'] });
  } finally {
    await client.close();
  }
}

/**
 * What a mail job delivers: its own export while that is the published one. When the published
 * export directly replaced it, and the job knows its export job, the replacing one: either the same
 * export job ran again (its worker died after queueing this mail, before BullMQ marked the job
 * completed; the second run's mail was not queued again, this job being its mail), or another export
 * replaced this one before its mail went. The sent-log's keys name the published export, so a second
 * e-mail job delivering it sends nothing twice. Its `when: changed` is judged against an export
 * nobody was mailed, so it counts as changed. Otherwise, undefined: a later export's own mail goes.
 */
export function whatToDeliver(
  data: MailJobData,
  manifest: MailManifest,
): { readonly email: MailJobData['email']; readonly instead: boolean } | undefined {
  if (manifest.export_id === data.export_id) return { email: data.email, instead: false };
  if (data.export_run === undefined || manifest.previous?.export_id !== data.export_id) return undefined;
  return { email: { ...data.email, when: 'always' }, instead: true };
}

export function createDeliverMailProcessor(deps: DeliverMailDeps): (job: Job) => Promise<DeliverMailResult> {
  const now = deps.now ?? (() => new Date());
  return async (job) => {
    const attempt = job.attemptsMade + 1;
    const last = attempt >= (job.opts.attempts ?? 1);
    const data = parseJobData(mailJobDataSchema, job.data, 'e-mail');
    const log = deps.logger.child({
      jobId: job.id,
      definition: data.definition,
      exportId: data.export_id,
      attempt,
    });
    const from = deps.smtp.from;
    if (deps.smtp.server === undefined || from === undefined) {
      log.error('delivery e-mail abandoned: SMTP_URL is not set on this worker');
      throw new UnrecoverableError('MAIL_SEND: SMTP_URL is not set on this worker; the e-mail is not sent');
    }
    const files = await openExportFiles({
      dest: data.dest,
      period: data.period,
      location: data.location,
      s3Config: deps.s3Config,
      expiresSeconds: deps.notifyConfig.linkExpiresSeconds,
      logger: log,
    });
    let report: MailDeliveryReport;
    try {
      const text = await files.readManifest();
      const manifest: MailManifest | undefined = text === undefined ? undefined : parseManifest(text);
      const delivery = manifest === undefined ? undefined : whatToDeliver(data, manifest);
      if (manifest === undefined || delivery === undefined) {
        log.info(
          { published: manifest?.export_id ?? null },
          'delivery e-mail not sent: a later export of the period replaced this one (its own e-mail goes)',
        );
        return { skipped: 'replaced' };
      }
      if (delivery.instead)
        log.info(
          { published: manifest.export_id },
          'the export of this e-mail was replaced before it went: the e-mail delivers the export that replaced it',
        );
      let divisions: MailDivision[] = [];
      if (data.email.to === DIVISION_MANAGERS_TO) {
        if (deps.wfm === undefined)
          throw new UnrecoverableError(
            'MAIL_SEND: the WFM API is not configured, so division managers cannot be read',
          );
        divisions = await managersOf(deps.wfm, divisionsOfExport(manifest), log);
      }
      report = await deliverExportMail({
        definition: data.definition,
        email: delivery.email,
        manifest,
        divisions,
        files,
        sender: deps.sender,
        sentLog: redisSentLog(deps.redis, deps.prefix),
        from,
        maxAttachmentBytes: deps.smtp.maxAttachmentBytes,
        logger: log,
        now,
      });
    } finally {
      files.close();
    }
    const notSent = report.messages.filter((m) => m.status === 'refused' || m.status === 'failed');
    const sentNow = report.messages.filter((m) => m.status === 'sent').length;
    const refusedNow = report.messages.filter((m) => m.status === 'refused').length;
    const failedForGood = report.pending > 0 ? last : notSent.length > 0;
    await recordMailOutcome(deps.redis, deps.prefix, {
      sent: sentNow,
      refused: refusedNow,
      failed: failedForGood,
    }).catch((error: unknown) =>
      log.warn({ reason: describeError(error) }, 'could not record e-mail metrics'),
    );
    await writeMailDeliveryRecord(deps.redis, deps.prefix, report.export_id, {
      definition: data.definition,
      state: report.pending > 0 ? (last ? 'failed' : 'pending') : notSent.length > 0 ? 'failed' : 'sent',
      at: now().toISOString(),
      attempts: attempt,
      messages: report.messages.length,
      sent: report.messages.filter((m) => m.status === 'sent' || m.status === 'already_sent').length,
      refused: report.messages.filter((m) => m.status === 'refused').length,
      failed: report.pending,
      skipped_recipients: report.skipped.length,
      unchanged: report.unchanged.length,
      ...(notSent[0]?.reason === undefined ? {} : { reason: notSent[0].reason }),
    }).catch((error: unknown) =>
      log.warn({ reason: describeError(error) }, 'could not record the e-mail outcome'),
    );
    if (failedForGood) {
      log.error(
        { notSent: notSent.length, attempts: attempt },
        'delivery e-mail failed for good: export.delivery_failed',
      );
      await deps.raise?.(
        exportDeliveryFailedEvent(
          {
            definition: data.definition,
            period: data.period,
            exportId: data.export_id,
            attempts: attempt,
            messages: notSent.map((m) => ({
              division_id: m.division_id,
              recipients: m.recipients,
              status: m.status === 'refused' ? 'refused' : 'failed',
              reason: m.reason ?? 'no reason given',
            })),
          },
          { jobId: job.id ?? null, now: now() },
        ),
      );
    }
    if (report.pending > 0) {
      const message = `MAIL_SEND: ${report.pending} of ${report.messages.length} delivery e-mails not sent: ${notSent.find((m) => m.status === 'failed')?.reason ?? ''}`;
      throw last ? new UnrecoverableError(message) : new TransientJobError(message);
    }
    return report;
  };
}
