// A real SMTP server for tests (smtp-server on 127.0.0.1, a free port, no TLS and no login, as on
// loopback), keeping every message it accepted as raw bytes and as mailparser parses them, with the
// envelope's recipients. A test can make it refuse recipients with a 5xx at RCPT, or answer a
// message's data with a 4xx.

import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { nameResource } from './leak-guard.js';

export interface ReceivedMail {
  readonly envelopeTo: readonly string[];
  readonly raw: string;
  readonly parsed: ParsedMail;
}

export interface SmtpReceiver {
  readonly port: number;
  /** SMTP_URL of this server. */
  readonly url: string;
  readonly messages: ReceivedMail[];
  /** Recipients answered `550 no such user` at RCPT. */
  readonly refuse: Set<string>;
  /** Answers the data of the next `n` messages with 451 (a transient refusal). */
  deferNext(n: number): void;
  close(): Promise<void>;
}

/** Listens on `port` (default: a free one), so a test can bring up a server where one was down. */
export async function startSmtpReceiver(port = 0): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const refuse = new Set<string>();
  let defer = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address.toLowerCase())) {
        callback(Object.assign(new Error('no such user here'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (defer > 0) {
          defer--;
          callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (parsed) => {
            messages.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), raw, parsed });
            callback();
          },
          (error: unknown) => callback(error as Error),
        );
      });
    },
  });
  nameResource(server.server, 'SMTP receiver');
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `smtp://127.0.0.1:${bound}`,
    messages,
    refuse,
    deferNext(n) {
      defer = n;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
