import { describe, expect, it } from 'vitest';
import { assertApiDestination } from '../../src/api/api-destination.js';
import { ApiError } from '../../src/api/api-error.js';

function refusal(dest: string, exportDest: string): ApiError | undefined {
  try {
    assertApiDestination(dest, exportDest);
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe('assertApiDestination', () => {
  it('accepts no dest, an s3 destination, EXPORT_DEST itself and a folder inside it', () => {
    expect(() => assertApiDestination(undefined, '/srv/exports')).not.toThrow();
    expect(refusal('s3://reports/shifts', '/srv/exports')).toBeUndefined();
    expect(refusal('s3://reports/shifts', 's3://other/x')).toBeUndefined();
    expect(refusal('/srv/exports', '/srv/exports')).toBeUndefined();
    expect(refusal('/srv/exports/team-a', '/srv/exports/')).toBeUndefined();
  });

  it('refuses a local folder outside EXPORT_DEST with a 400 naming the rule (the worker would write there)', () => {
    const error = refusal('/etc/cron.d', '/srv/exports');
    expect(error?.statusCode).toBe(400);
    expect(error?.error).toBe('invalid_body');
    expect(error?.message).toMatch(/^dest: "?\/etc\/cron\.d"? is refused: .*inside EXPORT_DEST/);
    expect(error?.message).not.toContain('\n');
    expect(refusal('/srv/exports-other', '/srv/exports')?.statusCode).toBe(400);
  });

  it('refuses a relative folder, which the API and the worker could resolve differently', () => {
    expect(refusal('exports/team-a', process.cwd())?.statusCode).toBe(400);
  });

  it('refuses any local folder when EXPORT_DEST is on S3', () => {
    expect(refusal('/tmp/x', 's3://reports/shifts')?.statusCode).toBe(400);
  });
});
