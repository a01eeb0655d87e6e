// One delivery attempt: the event as JSON, POSTed once to one receiver with undici, signed when
// NOTIFY_WEBHOOK_SECRET is set. The signature is the HMAC-SHA256 of exactly the bytes sent, so a
// receiver verifies the raw body before it parses it. A 2xx is delivered; anything else is a
// NotifyDeliveryError that says whether another attempt may help (network, timeout, 408, 429,
// 5xx) — retries are the caller's (the queue's backoff, or `run`'s short bounded loop).

import { createHmac } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { ShiftExportError } from '../errors.js';
import { oneLine } from '../one-line.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import type { NotifyEvent } from './notify-event.js';
import type { WebhookTarget } from './webhook-target.js';

export const SIGNATURE_HEADER = 'X-Shift-Export-Signature';
export const EVENT_HEADER = 'X-Shift-Export-Event';
/** The event's id again, for receivers that dedupe before they parse. */
export const DELIVERY_HEADER = 'X-Shift-Export-Delivery';

/** `sha256=<hex HMAC-SHA256 of body under secret>`, the value of X-Shift-Export-Signature. */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** A webhook POST that did not get a 2xx. Never carries the URL's path or credentials. */
export class NotifyDeliveryError extends ShiftExportError {
  readonly status: number | undefined;
  constructor(message: string, options: { retryable: boolean; status?: number; cause?: unknown }) {
    super('NOTIFY_DELIVERY_FAILED', message, { retryable: options.retryable, cause: options.cause });
    this.status = options.status;
  }
}

function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export interface PostOptions {
  readonly secret: string | undefined;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Tests and a shared pool; undici's global dispatcher otherwise. */
  readonly dispatcher?: Dispatcher;
}

/** POSTs `event` to `target` once; resolves with the status of a 2xx, throws NotifyDeliveryError otherwise. */
export async function postWebhook(
  target: WebhookTarget,
  event: NotifyEvent,
  options: PostOptions,
): Promise<number> {
  const body = JSON.stringify(event);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `${TOOL_NAME}/${TOOL_VERSION}`,
    [EVENT_HEADER.toLowerCase()]: event.event,
    [DELIVERY_HEADER.toLowerCase()]: event.id,
  };
  if (options.secret !== undefined) headers[SIGNATURE_HEADER.toLowerCase()] = signBody(options.secret, body);
  if (target.authorization !== undefined) headers['authorization'] = target.authorization;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
  let status: number;
  try {
    const response = await request(target.url, {
      method: 'POST',
      headers,
      body,
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
    });
    status = response.statusCode;
    // The answer is not read: only its status counts, and the socket goes back to the pool.
    await response.body.dump();
  } catch (error) {
    const why = timeout.aborted
      ? `no answer within NOTIFY_TIMEOUT_MS=${options.timeoutMs}`
      : options.signal?.aborted === true
        ? 'aborted'
        : oneLine(
            (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error)),
          )
            .split(target.url)
            .join(target.shown);
    throw new NotifyDeliveryError(`webhook ${target.shown} (${event.event}): ${why}`, {
      retryable: true,
      cause: error,
    });
  }
  if (status >= 200 && status < 300) return status;
  throw new NotifyDeliveryError(`webhook ${target.shown} (${event.event}) answered ${status}`, {
    retryable: retryableStatus(status),
    status,
  });
}
