import { describe, expect, it } from 'vitest';
import { loadSmtpConfig } from '../../src/config/smtp-config.js';
import { ConfigError } from '../../src/errors.js';
import { assertSmtpForEmail } from '../../src/notify/smtp-required.js';

describe('assertSmtpForEmail', () => {
  it('refuses definitions that deliver e-mail without SMTP_URL, naming the variable and them', () => {
    const off = loadSmtpConfig({});
    expect(() => assertSmtpForEmail([], off)).not.toThrow();
    expect(() => assertSmtpForEmail(['weekly-by-division', 'monthly'], off)).toThrow(ConfigError);
    expect(() => assertSmtpForEmail(['weekly-by-division', 'monthly'], off)).toThrow(
      /^SMTP_URL is not set, but the export definitions weekly-by-division, monthly deliver e-mail/,
    );
    const on = loadSmtpConfig({ SMTP_URL: 'smtp://relay.example.com', SMTP_FROM: 'a@b.example' });
    expect(() => assertSmtpForEmail(['monthly'], on)).not.toThrow();
  });
});
