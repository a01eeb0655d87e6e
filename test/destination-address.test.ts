import { describe, expect, it } from 'vitest';
import { parseDestination } from '../src/destination-address.js';

function refusal(text: string): string {
  try {
    parseDestination(text, '/work');
  } catch (error) {
    expect(error).toMatchObject({ code: 'DEST_INVALID', retryable: false });
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(text)} was accepted`);
}

describe('parseDestination', () => {
  it('reads s3://bucket/prefix, with or without a trailing slash or a prefix', () => {
    expect(parseDestination('s3://my-bucket/exports/shifts')).toEqual({
      kind: 's3',
      bucket: 'my-bucket',
      prefix: 'exports/shifts',
    });
    expect(parseDestination('s3://my-bucket/exports/')).toEqual({
      kind: 's3',
      bucket: 'my-bucket',
      prefix: 'exports',
    });
    expect(parseDestination('s3://my-bucket')).toEqual({ kind: 's3', bucket: 'my-bucket', prefix: '' });
    expect(parseDestination('s3://my-bucket/')).toEqual({ kind: 's3', bucket: 'my-bucket', prefix: '' });
    expect(parseDestination('S3://my.bucket.eu/a')).toEqual({
      kind: 's3',
      bucket: 'my.bucket.eu',
      prefix: 'a',
    });
  });

  it('resolves a local folder against the working directory', () => {
    expect(parseDestination('exports', '/work')).toEqual({ kind: 'local', dir: '/work/exports' });
    expect(parseDestination('./out/shifts/', '/work')).toEqual({ kind: 'local', dir: '/work/out/shifts' });
    expect(parseDestination('/var/exports', '/work')).toEqual({ kind: 'local', dir: '/var/exports' });
  });

  it('refuses ".." segments in a prefix or a folder', () => {
    expect(refusal('s3://bucket/a/../b')).toContain('".." segment');
    expect(refusal('s3://bucket/..')).toContain('".." segment');
    expect(refusal('../exports')).toContain('".."');
    expect(refusal('/var/exports/../etc')).toContain('".."');
    expect(refusal('s3://bucket/./a')).toContain('"." segment');
  });

  it('refuses a prefix with a leading "/" or an empty segment', () => {
    expect(refusal('s3://bucket//exports')).toContain('starts with "/"');
    expect(refusal('s3://bucket/a//b')).toContain('empty segment');
  });

  it('refuses control characters anywhere, and shows them escaped', () => {
    expect(refusal('exports\n')).toContain('control characters');
    expect(refusal('s3://bucket/a\u0000b')).toContain('"s3://bucket/a\\u0000b"');
    expect(refusal('s3://bucket/a\u007fb')).toContain('control characters');
    expect(refusal('exp\u0085orts')).toContain('control characters');
  });

  it('refuses empty text, other schemes and bucket names S3 would refuse', () => {
    expect(refusal('')).toContain('empty');
    expect(refusal('   ')).toContain('empty');
    expect(refusal('gs://bucket/x')).toContain('"gs://" is not supported');
    expect(refusal('https://bucket.s3.amazonaws.com/x')).toContain('not supported');
    expect(refusal('s3://')).toContain('not a valid bucket name');
    expect(refusal('s3://My_Bucket/x')).toContain('not a valid bucket name');
    expect(refusal('s3://ab/x')).toContain('not a valid bucket name');
    expect(refusal('s3://a..b/x')).toContain('not a valid bucket name');
    expect(refusal(`s3://bucket/${'k'.repeat(800)}`)).toContain('longer than');
  });
});
