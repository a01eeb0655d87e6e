import { describe, expect, it } from 'vitest';
import {
  isRetryableS3Error,
  safeMessage,
  toLocalDestinationError,
  toS3DestinationError,
} from '../../src/destinations/destination-errors.js';
import { InvalidRequestError } from '../../src/errors.js';

function sdkError(name: string, status?: number, message = `${name} happened`): Error {
  return Object.assign(new Error(message), {
    name,
    ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } }),
  });
}

describe('isRetryableS3Error', () => {
  it('retries 5xx, throttling, timeouts and network failures', () => {
    expect(isRetryableS3Error(sdkError('InternalError', 500))).toBe(true);
    expect(isRetryableS3Error(sdkError('ServiceUnavailable', 503))).toBe(true);
    expect(isRetryableS3Error(sdkError('SlowDown', 503))).toBe(true);
    expect(isRetryableS3Error(sdkError('TooManyRequests', 429))).toBe(true);
    expect(isRetryableS3Error(sdkError('RequestTimeout', 400))).toBe(true);
    expect(isRetryableS3Error(sdkError('ExpiredToken', 400))).toBe(true);
    expect(
      isRetryableS3Error(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
      ),
    ).toBe(true);
    expect(isRetryableS3Error(sdkError('TimeoutError'))).toBe(true);
  });

  it('does not retry credentials, permissions, a missing bucket or a bad request', () => {
    expect(isRetryableS3Error(sdkError('AccessDenied', 403))).toBe(false);
    expect(isRetryableS3Error(sdkError('InvalidAccessKeyId', 403))).toBe(false);
    expect(isRetryableS3Error(sdkError('SignatureDoesNotMatch', 403))).toBe(false);
    expect(isRetryableS3Error(sdkError('NoSuchBucket', 404))).toBe(false);
    expect(
      isRetryableS3Error(
        sdkError('CredentialsProviderError', undefined, 'Could not load credentials from any providers'),
      ),
    ).toBe(false);
    expect(isRetryableS3Error(sdkError('SomethingNew', 400))).toBe(false);
    expect(isRetryableS3Error(sdkError('Forbidden', 403))).toBe(false);
  });
});

describe('toS3DestinationError', () => {
  it('names the action, the location, the S3 code and the HTTP status', () => {
    const error = toS3DestinationError(
      sdkError('NoSuchBucket', 404, 'The specified bucket does not exist'),
      'check',
      's3://b/p',
    );
    expect(error.code).toBe('DEST_S3');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      'S3 check failed for s3://b/p: NoSuchBucket, HTTP 404: The specified bucket does not exist',
    );
    expect(error.details).toEqual({ location: 's3://b/p', s3Code: 'NoSuchBucket', httpStatus: 404 });
  });

  it('lets our own errors through unchanged', () => {
    const ours = new InvalidRequestError('bad');
    expect(toS3DestinationError(ours, 'x', 'y')).toBe(ours);
  });
});

describe('safeMessage', () => {
  it('drops URL queries (presigned signatures) and user:password parts', () => {
    const message = safeMessage(
      new Error(
        'GET https://bucket.s3.amazonaws.com/k?X-Amz-Credential=AKIA123%2F&X-Amz-Signature=abc failed via http://user:pa55@proxy:3128/',
      ),
    );
    expect(message).not.toMatch(/AKIA123|abc|pa55|user/);
    expect(message).toContain('https://bucket.s3.amazonaws.com/k?…');
  });
});

describe('toLocalDestinationError', () => {
  const errno = (code: string): Error => Object.assign(new Error(`${code}: failed`), { code });

  it('explains the errno and refuses to retry a setup problem', () => {
    const error = toLocalDestinationError(errno('EACCES'), 'write into the export folder', '/srv/exports');
    expect(error.code).toBe('DEST_LOCAL');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      'cannot write into the export folder /srv/exports: EACCES (permission denied: make the folder writable by this user)',
    );
    expect(toLocalDestinationError(errno('EROFS'), 'write', '/x').retryable).toBe(false);
    expect(toLocalDestinationError(errno('ENOTDIR'), 'write', '/x').retryable).toBe(false);
  });

  it('retries a full disk or exhausted descriptors, which can clear up by themselves', () => {
    expect(toLocalDestinationError(errno('ENOSPC'), 'write', '/x').retryable).toBe(true);
    expect(toLocalDestinationError(errno('EMFILE'), 'write', '/x').retryable).toBe(true);
  });
});
