// The e-mail of a published export as a job of the notification queue (`shift-export-notifications`,
// job name `email`): which definition, its `deliver.email` settings as they were when the export
// ran, and where the export is. The job holds no address of a manager (they are read from the
// upstream when it runs) and no credential. Its id is the definition's and the export job's run
// (queue/export-run.ts: the same for every attempt of one run), so the same export handed over
// twice (a retried hook) is one job, and so is an export job taken over after its worker died
// between queueing this mail and BullMQ marking the job completed: the attempt that takes it over
// publishes under a new export id, its mail adds nothing, and this job delivers what is published
// (jobs/deliver-mail.ts). A re-run asked for (`--force`, the nightly re-export) is a new run.

import type { Queue } from 'bullmq';
import { z } from 'zod';
import { EXPORT_FORMATS } from '../domain/export-format.js';
import { describeError } from '../errors.js';
import { DEFAULT_REPORT_LANGUAGE, REPORT_LANGUAGES } from '../i18n/report-language.js';
import type { Logger } from '../logger.js';
import { MAIL_JOB_NAME } from '../queue/queue-names.js';
import { settleWithin } from '../settle-within.js';
import { DIVISION_MANAGERS_TO, type MailSettings } from './mail-recipients.js';
import { ENQUEUE_TIMEOUT_MS } from './notification-queue.js';
import { idPart } from './notify-event.js';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const mailJobDataSchema = z.strictObject({
  definition: z.string().regex(/^[a-z0-9-]{1,64}$/),
  email: z.strictObject({
    to: z.union([z.literal(DIVISION_MANAGERS_TO), z.array(z.string().max(254)).min(1)]),
    cc: z.array(z.string().max(254)),
    attach: z.array(z.enum(EXPORT_FORMATS)).min(1),
    when: z.enum(['always', 'changed']),
    // A job queued by a worker from before the report languages was to be written in English.
    lang: z.enum(REPORT_LANGUAGES).default(DEFAULT_REPORT_LANGUAGE),
  }),
  export_id: z.string().min(1).max(256),
  /** The export job's run (queue/export-run.ts); absent in jobs queued by workers of 0.2.0 and before. */
  export_run: z.string().min(1).max(256).optional(),
  period: z.strictObject({ from: day, to: day }),
  /** The export's destination root. */
  dest: z.string().min(1).max(1024),
  /** Where the published export is (the job result's `location`). */
  location: z.string().min(1).max(2048),
});

export type MailJobData = z.infer<typeof mailJobDataSchema>;

/** The id of the e-mail job: by the export job's run when the export ran as one, else by the export. */
export function mailJobId(data: Pick<MailJobData, 'definition' | 'export_id' | 'export_run'>): string {
  return data.export_run === undefined
    ? `email.${idPart(data.definition)}.${idPart(data.export_id)}`
    : `email.${idPart(data.definition)}.run.${idPart(data.export_run)}`;
}

/** What the export job knows when it completed: enough to queue its e-mail. */
export interface PublishedForMail {
  readonly definition: string;
  readonly email: MailSettings;
  readonly exportId: string;
  /** The export job's run (queue/export-run.ts), when the export ran as a job. */
  readonly exportRun?: string | undefined;
  readonly period: { readonly from: string; readonly to: string };
  readonly dest: string;
  readonly location: string;
}

export function mailJobData(published: PublishedForMail): MailJobData {
  return {
    definition: published.definition,
    email: {
      to: published.email.to === DIVISION_MANAGERS_TO ? DIVISION_MANAGERS_TO : [...published.email.to],
      cc: [...published.email.cc],
      attach: [...published.email.attach],
      when: published.email.when,
      lang: published.email.lang,
    },
    export_id: published.exportId,
    ...(published.exportRun === undefined ? {} : { export_run: published.exportRun }),
    period: { from: published.period.from, to: published.period.to },
    dest: published.dest,
    location: published.location,
  };
}

/** Queues the e-mail of a published export; waits at most ENQUEUE_TIMEOUT_MS and never throws. */
export async function queueExportMail(
  queue: Queue,
  published: PublishedForMail,
  logger: Logger,
): Promise<void> {
  const data = mailJobData(published);
  const add = queue.add(MAIL_JOB_NAME, data, { jobId: mailJobId(data) }).then(
    () => logger.info({ definition: data.definition, exportId: data.export_id }, 'delivery e-mail queued'),
    (error: unknown) =>
      logger.error(
        { definition: data.definition, exportId: data.export_id, reason: describeError(error) },
        'could not queue the delivery e-mail of an export; it is not sent',
      ),
  );
  await settleWithin(add, ENQUEUE_TIMEOUT_MS);
}
