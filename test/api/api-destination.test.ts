import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertApiDestination } from '../../src/api/api-destination.js';
import { ApiError } from '../../src/api/api-error.js';
import { destinationRoots } from '../../src/destinations/allowed-destination.js';

let root: string;
let exports: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'api-dest-'));
  exports = join(root, 'exports');
  await mkdir(exports);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function refusal(dest: string | undefined, exportDest: string, allow: string[] = []) {
  try {
    await assertApiDestination(dest, destinationRoots({ dest: exportDest, destAllow: allow }));
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe('assertApiDestination', () => {
  it('accepts no dest, EXPORT_DEST itself, a folder inside it and an S3 root listed in EXPORT_DEST_ALLOW', async () => {
    expect(await refusal(undefined, exports)).toBeUndefined();
    expect(await refusal(exports, exports)).toBeUndefined();
    expect(await refusal(join(exports, 'team-a'), `${exports}/`)).toBeUndefined();
    expect(await refusal('s3://reports/shifts/team', exports, ['s3://reports/shifts'])).toBeUndefined();
  });

  it('refuses a local folder outside the roots with a 400 naming the rule (the worker would write there)', async () => {
    const error = await refusal('/etc/cron.d', exports);
    expect(error?.statusCode).toBe(400);
    expect(error?.error).toBe('invalid_body');
    expect(error?.message).toMatch(/^dest: "?\/etc\/cron\.d"? is refused: .*inside EXPORT_DEST/);
    expect(error?.message).not.toContain('\n');
    expect((await refusal(`${exports}-other`, exports))?.statusCode).toBe(400);
  });

  it('refuses a symlink inside EXPORT_DEST that leads out of it', async () => {
    await mkdir(join(root, 'elsewhere'));
    await symlink(join(root, 'elsewhere'), join(exports, 'escape'));
    expect((await refusal(join(exports, 'escape'), exports))?.statusCode).toBe(400);
    expect((await refusal(join(exports, 'escape', 'sub'), exports))?.statusCode).toBe(400);
  });

  it('refuses a relative folder, which the API and the worker could resolve differently', async () => {
    expect((await refusal('exports/team-a', process.cwd()))?.statusCode).toBe(400);
  });

  it('refuses an S3 destination that no root covers, and any local folder when EXPORT_DEST is on S3', async () => {
    expect((await refusal('s3://reports/shifts', exports))?.statusCode).toBe(400);
    expect((await refusal('/tmp/x', 's3://reports/shifts'))?.statusCode).toBe(400);
  });
});
