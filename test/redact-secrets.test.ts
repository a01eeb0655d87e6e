import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSecretName, redactSecrets, secretValuesOf, shownValue } from '../src/redact-secrets.js';

describe('redactSecrets', () => {
  it.each([
    ['redis://default:pa55word@redis.internal:6379/0', 'redis://***@redis.internal:6379/0'],
    ['rediss://:pa55word@redis.internal', 'rediss://***@redis.internal'],
    ['https://wfm-token-xyz@wfm.example.com/v1', 'https://***@wfm.example.com/v1'],
    ['got "redis://u:pa ss@host": bad', 'got "redis://***@host": bad'],
    ['https://h/v1?password=pa55&x=1', 'https://h/v1?password=***&x=1'],
    ['db_password=pa55;user=me', 'db_password=***;user=me'],
    ['access_token=abc123 api_key="k e y" Secret=x', 'access_token=*** api_key=*** Secret=***'],
    ['Authorization: Bearer abc.def-ghi', 'Authorization: Bearer ***'],
  ])('hides the secret of %s', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it('keeps prose and URLs without credentials as they are', () => {
    for (const text of [
      'WFM_TOKEN is not set (nor WFM_TOKEN_FILE): the WFM API needs a bearer token',
      'must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379',
      'GET https://wfm.example.com/v1/report?start_time=gte.2026-11-01T00:00:00 failed',
    ])
      expect(redactSecrets(text)).toBe(text);
  });

  it('hides the values it is given, whatever their shape', () => {
    expect(redactSecrets('token file "/run/s3cr3t-value" is odd', ['s3cr3t-value'])).toBe(
      'token file "/run/***" is odd',
    );
  });

  it('never lets a password through in a URL, whatever the password holds', () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const password = `Pw${raw}`;
        const shown = shownValue('REDIS_URL', `redis://user:${password}@redis.internal:6379`);
        expect(shown).toBe('"redis://***@redis.internal:6379"');
      }),
    );
  });
});

describe('shownValue', () => {
  it('shows a secret-named variable as *** and others as one JSON line', () => {
    expect(shownValue('WFM_TOKEN', 'abc\r\n')).toBe('***');
    expect(shownValue('API_TOKENS', 'a,b')).toBe('***');
    expect(shownValue('S3_SSE_KMS_KEY_ID', 'k')).toBe('***');
    expect(shownValue('CSV_DELIMITER', '|\n')).toBe('"|\\n"');
  });

  it('takes everything from :// to the last @ as userinfo, even across quotes and line breaks', () => {
    expect(shownValue('REDIS_URL', 'redis://u:p"a\nss@host')).toBe('"redis://***@host"');
  });
});

describe('secretValuesOf', () => {
  it('collects the values of secret-named variables and their comma-separated parts', () => {
    const values = secretValuesOf({
      WFM_TOKEN: 'tok-1',
      API_TOKENS: 'api-1, api-2',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      WFM_BASE_URL: 'https://wfm.example.com',
    });
    expect(values).toEqual(expect.arrayContaining(['tok-1', 'api-1', 'api-2', 'aws-secret']));
    expect(values).not.toContain('https://wfm.example.com');
    expect(isSecretName('MINIO_ROOT_PASSWORD')).toBe(true);
    expect(isSecretName('REDIS_URL')).toBe(false);
  });
});
