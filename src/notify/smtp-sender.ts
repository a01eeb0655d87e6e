// The one door to nodemailer: a message handed to the SMTP server of SMTP_URL, and what came of it
// in our words. A send resolves once the server has answered 250 to the message's data, with the
// recipients it refused at RCPT (5xx: permanent); a failure is a MailSendError that says whether
// trying again can help: a connection refused, dropped or timed out, or a 4xx, is transient; a
// 5xx for the message or for every recipient is permanent. Neither the password nor the server's
// user reaches a message: errors show the server as `smtp://host:port`.

import { createTransport } from 'nodemailer';
import type { Readable } from 'node:stream';
import type { SmtpServer } from '../config/smtp-config.js';
import { ShiftExportError } from '../errors.js';
import { oneLine } from '../one-line.js';
import type { MailRecipient } from './mail-recipients.js';

/** A message could not be handed to the SMTP server; `retryable` says whether a later try can help. */
export class MailSendError extends ShiftExportError {
  /** The SMTP reply code, when the server answered. */
  readonly responseCode: number | undefined;
  constructor(
    message: string,
    options: { retryable: boolean; responseCode?: number | undefined; cause?: unknown },
  ) {
    super('MAIL_SEND', message, {
      retryable: options.retryable,
      cause: options.cause,
      details: options.responseCode === undefined ? undefined : { responseCode: options.responseCode },
    });
    this.responseCode = options.responseCode;
  }
}

export interface MailAttachment {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Readable;
}

export interface OutgoingMail {
  readonly from: string;
  readonly to: readonly MailRecipient[];
  readonly cc: readonly MailRecipient[];
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The language of the text and HTML parts: the Content-Language header (one of ours, never the upstream's text). */
  readonly language: string;
  readonly attachments: readonly MailAttachment[];
  /** Message-ID without brackets: the same for every attempt of one message, so readers can spot a repeat. */
  readonly messageId: string;
}

export interface SendOutcome {
  /** Recipients the server accepted (their mail is on its way). */
  readonly accepted: readonly string[];
  /** Recipients the server refused with a 5xx at RCPT: not sent, not to be retried. */
  readonly refused: readonly string[];
}

export interface MailSender {
  send(mail: OutgoingMail): Promise<SendOutcome>;
  close(): void;
}

export interface SmtpSenderOptions {
  /** Longest wait for the connection, the greeting and each reply (default 30 s). */
  readonly timeoutMs?: number;
}

interface NodemailerFailure {
  readonly code?: string;
  readonly responseCode?: number;
  readonly permanent?: boolean;
  readonly response?: string;
  readonly message?: string;
}

/** The first line of the server's reply, or nodemailer's code: never a credential. */
function reasonOf(error: NodemailerFailure): string {
  if (error.response !== undefined) return oneLine(error.response).slice(0, 300);
  return error.code ?? 'unknown error';
}

function address(r: MailRecipient): { name: string; address: string } | string {
  return r.name === undefined ? r.address : { name: r.name, address: r.address };
}

/** Addresses as nodemailer reports them: strings, or objects from a parsed header. */
function addressesOf(list: readonly unknown[] | undefined): string[] {
  return (list ?? []).map((entry) =>
    typeof entry === 'string' ? entry : String((entry as { address?: unknown }).address ?? ''),
  );
}

export function smtpSender(server: SmtpServer, options: SmtpSenderOptions = {}): MailSender {
  const timeout = options.timeoutMs ?? 30_000;
  const transport = createTransport({
    host: server.host,
    port: server.port,
    secure: server.secure,
    ...(server.user === undefined ? {} : { auth: { user: server.user, pass: server.password ?? '' } }),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    // Attachments are streams we open; nothing else may be read from disk or fetched from a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    async send(mail) {
      try {
        const info = await transport.sendMail({
          from: mail.from,
          to: mail.to.map(address),
          cc: mail.cc.map(address),
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: { 'Content-Language': mail.language },
          messageId: `<${mail.messageId}>`,
          attachments: mail.attachments.map((a) => ({
            filename: a.filename,
            contentType: a.contentType,
            content: a.content,
          })),
        });
        return { accepted: addressesOf(info.accepted), refused: addressesOf(info.rejected) };
      } catch (caught) {
        const error = caught as NodemailerFailure;
        const permanent = error.permanent === true;
        const what = error.responseCode === undefined ? 'could not reach' : 'was refused by';
        throw new MailSendError(`the message ${what} the SMTP server ${server.shown}: ${reasonOf(error)}`, {
          retryable: !permanent,
          responseCode: error.responseCode,
          cause: caught,
        });
      }
    },
    close() {
      transport.close();
    },
  };
}
