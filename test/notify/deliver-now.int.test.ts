// In-process delivery (what `run` uses) against a real HTTP receiver on 127.0.0.1: the body is
// signed over its raw bytes, a 5xx is retried and a 4xx is not, a receiver that never answers ends
// the attempt at NOTIFY_TIMEOUT_MS, and no failure is thrown at the caller.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deliverNow } from '../../src/notify/deliver-now.js';
import { exportFailedEvent, type NotifyEvent } from '../../src/notify/notify-event.js';
import { webhookTarget } from '../../src/notify/webhook-target.js';
import { capturingLogger } from '../queue/support/queue-harness.js';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = 'notify-secret-0123456789';

const event: NotifyEvent = exportFailedEvent(
  {
    period: { from: '2026-11-23', to: '2026-11-23' },
    code: 'WFM_AUTH',
    message: 'the WFM API answered 401',
    attempts: 1,
    durationMs: 10,
    occurrence: 'run.1.abcd',
  },
  { jobId: null, now: new Date('2026-11-24T03:00:00Z') },
);

let receiver: WebhookReceiver;

beforeEach(async () => {
  receiver = await startWebhookReceiver();
});

afterEach(async () => {
  await receiver.close();
});

function send(options: { secret?: string; timeoutMs?: number; attempts?: number } = {}) {
  const { logger, lines } = capturingLogger();
  const target = webhookTarget(`${receiver.origin}/hooks/secret-path-9f8e`);
  const delivered = deliverNow(event, [target], {
    secret: options.secret,
    timeoutMs: options.timeoutMs ?? 5_000,
    logger,
    attempts: options.attempts ?? 3,
    firstDelayMs: 5,
  });
  return { delivered, lines };
}

describe('deliverNow', () => {
  it('POSTs the event as JSON, signed over the raw body, with its name and id in headers', async () => {
    const { delivered } = send({ secret: SECRET });
    expect(await delivered).toEqual([{ target: receiver.origin, delivered: true, attempts: 1 }]);
    const [request] = receiver.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/hooks/secret-path-9f8e');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-shift-export-event']).toBe('export.failed');
    expect(request?.headers['x-shift-export-delivery']).toBe(event.id);
    expect(request !== undefined && verifySignature(request, SECRET)).toBe(true);
    expect(request !== undefined && verifySignature(request, `${SECRET}x`)).toBe(false);
    expect(request?.json()).toEqual(JSON.parse(JSON.stringify(event)));
  });

  it('sends no signature without a secret', async () => {
    await send().delivered;
    expect(receiver.requests[0]?.headers['x-shift-export-signature']).toBeUndefined();
  });

  it('retries after a 500 and stops at the first 2xx: the event is accepted once', async () => {
    receiver.answerNext(500, 503);
    const { delivered, lines } = send({ secret: SECRET });
    expect(await delivered).toEqual([{ target: receiver.origin, delivered: true, attempts: 3 }]);
    expect(receiver.requests.map((r) => r.status)).toEqual([500, 503, 200]);
    expect(receiver.accepted()).toHaveLength(1);
    expect(new Set(receiver.requests.map((r) => r.json()['id']))).toEqual(new Set([event.id]));
    expect(lines.filter((l) => l.msg === 'notification attempt failed')).toHaveLength(2);
  });

  it('does not retry a 4xx, and says so in the log without the URL path', async () => {
    receiver.answerNext(400);
    const { delivered, lines } = send();
    expect(await delivered).toEqual([{ target: receiver.origin, delivered: false, attempts: 1 }]);
    expect(receiver.requests).toHaveLength(1);
    const failure = lines.find((l) => l.msg === 'notification not delivered');
    expect(failure).toMatchObject({
      target: receiver.origin,
      reason: expect.stringContaining('answered 400'),
    });
    expect(JSON.stringify(lines)).not.toContain('secret-path-9f8e');
  });

  it('gives up on a receiver that never answers after its attempts, without throwing', async () => {
    receiver.hang();
    const { delivered } = send({ timeoutMs: 150, attempts: 2 });
    expect(await delivered).toEqual([{ target: receiver.origin, delivered: false, attempts: 2 }]);
    expect(receiver.requests).toHaveLength(2);
  });
});
