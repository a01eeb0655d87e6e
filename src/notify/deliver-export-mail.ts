// The e-mail of one published export: what the worker's notification queue and `run` call when a
// definition has `deliver.email`. It plans the messages (mail-plan.ts), then for each one looks the
// message key up in the sent-log, attaches the files up to SMTP_MAX_ATTACHMENT_MB and links the
// larger ones, sends, and records the server's answer at once. It never throws for a message: the
// report says what was sent, what was already sent by an earlier attempt, what the server refused
// for good (recorded, never retried) and what failed for now (`pending`): the caller retries those.

import type { Readable } from 'node:stream';
import { describeError, isShiftExportError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PreviousPublished } from './mail-glance.js';
import {
  composeMessage,
  type FileDelivery,
  type MailManifest,
  type MailManifestFile,
} from './mail-message.js';
import { planMail, type PlannedMessage } from './mail-plan.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import type { LanguageFallback, MailDivision, MailSettings, SkippedRecipient } from './mail-recipients.js';
import type { SentLog } from './mail-sent-log.js';
import type { MailAttachment, MailSender } from './smtp-sender.js';

/** The published files of the export, as delivery reaches them. */
export interface ExportFiles {
  /** A published file's bytes, by its manifest path. */
  open(path: string): Promise<Readable>;
  /** Where a file too large to attach is: a presigned URL (S3) or its path (a local folder). */
  link(
    path: string,
  ): Promise<
    { readonly kind: 'url'; readonly url: string } | { readonly kind: 'path'; readonly path: string }
  >;
  /**
   * The same definition's previous period as published in the same destination, for the mail's
   * comparison; undefined when there is none. Absent: the mail compares with nothing.
   */
  previousPublished?(): Promise<PreviousPublished | undefined>;
}

export interface DeliverExportMailInput {
  /** The definition's name: in the subject, the log and the report. */
  readonly definition: string;
  readonly email: MailSettings;
  readonly manifest: MailManifest;
  /** The upstream's divisions with their managers (`dirs`), read at send time; [] for a list of addresses. */
  readonly divisions: readonly MailDivision[];
  readonly files: ExportFiles;
  readonly sender: MailSender;
  readonly sentLog: SentLog;
  /** SMTP_FROM. */
  readonly from: string;
  readonly maxAttachmentBytes: number;
  readonly logger: Logger;
  readonly now?: () => Date;
}

export type MessageStatus = 'sent' | 'already_sent' | 'refused' | 'failed';

export interface MessageReport {
  readonly key: string;
  readonly division_id: number | null;
  /** The language the message was written in. */
  readonly lang: ReportLanguage;
  readonly recipients: number;
  readonly status: MessageStatus;
  /** Recipients the server refused with a 5xx (recorded; not retried). */
  readonly refused: readonly string[];
  readonly attached: number;
  readonly linked: number;
  /** Why a message was refused or failed, one line. */
  readonly reason?: string;
}

export interface MailDeliveryReport {
  readonly definition: string;
  readonly export_id: string;
  readonly messages: readonly MessageReport[];
  readonly skipped: readonly SkippedRecipient[];
  /** Managers who got the definition's language because theirs has no catalog or is not a tag. */
  readonly language_fallbacks: readonly LanguageFallback[];
  /** Divisions (null: the whole export) not sent because `when: changed` found no change. */
  readonly unchanged: readonly (number | null)[];
  /** Messages that failed for now (SMTP unreachable, 4xx): another attempt may send them. */
  readonly pending: number;
}

/** The attachment's file name: the definition and period first, so a reader's downloads sort. */
function attachmentName(definition: string, manifest: MailManifest, file: MailManifestFile): string {
  return `${definition}_${manifest.period.from}_${manifest.period.to}_${file.name}`;
}

interface PreparedFiles {
  readonly deliveries: FileDelivery[];
  readonly attachments: MailAttachment[];
}

async function prepareFiles(input: DeliverExportMailInput, message: PlannedMessage): Promise<PreparedFiles> {
  const deliveries: FileDelivery[] = [];
  const attachments: MailAttachment[] = [];
  try {
    for (const file of message.files) {
      if (file.bytes <= input.maxAttachmentBytes) {
        attachments.push({
          filename: attachmentName(input.definition, input.manifest, file),
          contentType: file.content_encoding === 'gzip' ? 'application/gzip' : file.content_type,
          content: await input.files.open(file.path),
        });
        deliveries.push({ kind: 'attached', file });
        continue;
      }
      const limitBytes = input.maxAttachmentBytes;
      try {
        const link = await input.files.link(file.path);
        deliveries.push(
          link.kind === 'url'
            ? { kind: 'url', file, url: link.url, limitBytes }
            : { kind: 'path', file, path: link.path, limitBytes },
        );
      } catch (error) {
        input.logger.warn(
          { file: file.path, reason: describeError(error) },
          'could not link a file of a delivery e-mail',
        );
        deliveries.push({ kind: 'missing', file, limitBytes });
      }
    }
  } catch (error) {
    for (const a of attachments) a.content.destroy();
    throw error;
  }
  return { deliveries, attachments };
}

async function sendOne(
  input: DeliverExportMailInput,
  message: PlannedMessage,
  previous: PreviousPublished | undefined,
): Promise<MessageReport> {
  const now = input.now ?? (() => new Date());
  const recipients = message.to.length + message.cc.length;
  const base = { key: message.key, division_id: message.division_id, lang: message.lang, recipients };
  const log = input.logger.child({
    definition: input.definition,
    division: message.division_id,
    lang: message.lang,
    message: message.key,
  });
  const earlier = await input.sentLog.find(message.key);
  if (earlier !== undefined) {
    log.info(
      { status: earlier.status, at: earlier.at },
      'delivery e-mail already handled by an earlier attempt; not sent again',
    );
    return {
      ...base,
      status: earlier.status === 'accepted' ? 'already_sent' : 'refused',
      refused: earlier.refused,
      attached: 0,
      linked: 0,
      ...(earlier.reason === undefined ? {} : { reason: earlier.reason }),
    };
  }
  let prepared: PreparedFiles;
  try {
    prepared = await prepareFiles(input, message);
  } catch (error) {
    const reason = describeError(error);
    log.warn({ reason }, 'could not read the files of a delivery e-mail; it is tried again');
    return { ...base, status: 'failed', refused: [], attached: 0, linked: 0, reason };
  }
  const division =
    message.division_id === null
      ? null
      : (input.manifest.divisions?.find((d) => d.division_id === message.division_id) ?? {
          division_id: message.division_id,
          division_name: message.division_name ?? `Division ${message.division_id}`,
        });
  const content = composeMessage({
    definition: input.definition,
    manifest: input.manifest,
    division,
    files: prepared.deliveries,
    language: message.lang,
    previous,
  });
  const attached = prepared.attachments.length;
  const linked = prepared.deliveries.length - attached;
  try {
    const outcome = await input.sender.send({
      from: input.from,
      to: message.to,
      cc: message.cc,
      ...content,
      attachments: prepared.attachments,
      messageId: `${message.key}@shift-export`,
    });
    // The server said 250: recorded before anything else can fail.
    await input.sentLog.record(message.key, {
      status: 'accepted',
      at: now().toISOString(),
      refused: outcome.refused,
    });
    if (outcome.refused.length > 0)
      log.warn(
        { refused: outcome.refused },
        'delivery e-mail sent; the SMTP server refused some recipients for good',
      );
    log.info({ recipients, accepted: outcome.accepted.length, attached, linked }, 'delivery e-mail sent');
    return { ...base, status: 'sent', refused: outcome.refused, attached, linked };
  } catch (error) {
    const reason = describeError(error);
    const permanent = isShiftExportError(error) && !error.retryable;
    if (permanent) {
      const refused = [...message.to, ...message.cc].map((r) => r.address);
      await input.sentLog.record(message.key, {
        status: 'refused',
        at: now().toISOString(),
        refused,
        reason,
      });
      log.error({ reason }, 'delivery e-mail refused for good by the SMTP server; recorded, not retried');
      return { ...base, status: 'refused', refused, attached, linked, reason };
    }
    log.warn({ reason }, 'delivery e-mail not sent; it is tried again');
    return { ...base, status: 'failed', refused: [], attached, linked, reason };
  } finally {
    for (const a of prepared.attachments) a.content.destroy();
  }
}

/**
 * The previous period's manifest, read once for every message of the delivery. A comparison is
 * worth a line of the mail, not the mail: when it cannot be read, the mail says there is nothing
 * to compare with, and the log says why.
 */
async function previousPublished(
  input: DeliverExportMailInput,
  log: Logger,
): Promise<PreviousPublished | undefined> {
  try {
    const previous = await input.files.previousPublished?.();
    log.debug({ previous: previous?.period ?? null }, 'previous period for the delivery e-mail');
    return previous;
  } catch (error) {
    log.warn(
      { reason: describeError(error) },
      "the previous period's manifest could not be read; the delivery e-mail compares with nothing",
    );
    return undefined;
  }
}

/** Sends the mail of one published export; see the file's head. Never throws for one message. */
export async function deliverExportMail(input: DeliverExportMailInput): Promise<MailDeliveryReport> {
  const plan = planMail(input.email, input.manifest, input.divisions);
  const log = input.logger.child({ definition: input.definition, exportId: input.manifest.export_id });
  for (const s of plan.skipped) log.warn(s, 'no delivery e-mail for this recipient');
  for (const f of plan.fallbacks)
    log.info(
      f,
      "delivery e-mail in the definition's language: the manager's own has no catalog or is not a language tag",
    );
  if (plan.unchanged.length > 0)
    log.info(
      { divisions: plan.unchanged },
      'no delivery e-mail: nothing changed since the previous export (when: changed)',
    );
  const previous = plan.messages.length === 0 ? undefined : await previousPublished(input, log);
  const messages: MessageReport[] = [];
  // One at a time: a division's mail is small, and a struggling SMTP server is not made busier.
  for (const message of plan.messages) messages.push(await sendOne(input, message, previous));
  return {
    definition: input.definition,
    export_id: input.manifest.export_id,
    messages,
    skipped: plan.skipped,
    language_fallbacks: plan.fallbacks,
    unchanged: plan.unchanged,
    pending: messages.filter((m) => m.status === 'failed').length,
  };
}
