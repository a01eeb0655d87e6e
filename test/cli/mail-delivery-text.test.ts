import { describe, expect, it } from 'vitest';
import { mailDeliveryText } from '../../src/cli/job-text.js';

const base = {
  definition: 'weekly-by-division',
  at: '2026-11-23T06:01:00.000Z',
  attempts: 1,
  messages: 4,
  sent: 4,
  refused: 0,
  failed: 0,
  skipped_recipients: 2,
  unchanged: 1,
};

describe('mailDeliveryText', () => {
  it('says what became of the e-mail of an export, on the lines status prints', () => {
    expect(mailDeliveryText({ ...base, state: 'sent' })).toBe(
      'E-mail    sent for weekly-by-division: 4 of 4 messages sent, 2 recipients skipped, 1 unchanged, not sent, 1 attempt',
    );
    expect(
      mailDeliveryText({
        ...base,
        state: 'failed',
        attempts: 8,
        sent: 3,
        failed: 1,
        reason:
          'MAIL_SEND: the message could not reach the SMTP server smtp://mail.example.com:587: ECONNECTION\r\nX: y',
      }),
    ).toBe(
      'E-mail    FAILED (export.delivery_failed) for weekly-by-division: 3 of 4 messages sent, 1 not sent, 2 recipients skipped, 1 unchanged, not sent, 8 attempts\n' +
        '          MAIL_SEND: the message could not reach the SMTP server smtp://mail.example.com:587: ECONNECTION X: y',
    );
  });
});
