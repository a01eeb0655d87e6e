import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertDestinationAllowed, destinationRoots } from '../../src/destinations/allowed-destination.js';
import { ShiftExportError } from '../../src/errors.js';

let root: string;
let exports: string;
let outside: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'allowed-dest-'));
  exports = join(root, 'exports');
  outside = join(root, 'outside');
  await Promise.all([mkdir(exports), mkdir(outside)]);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function refusal(dest: string, allow: readonly string[] = []): Promise<ShiftExportError | undefined> {
  try {
    await assertDestinationAllowed(dest, destinationRoots({ dest: exports, destAllow: allow }));
    return undefined;
  } catch (error) {
    if (error instanceof ShiftExportError) return error;
    throw error;
  }
}

describe('assertDestinationAllowed', () => {
  it('accepts EXPORT_DEST itself and folders below it, existing or not', async () => {
    expect(await refusal(exports)).toBeUndefined();
    expect(await refusal(`${exports}/`)).toBeUndefined();
    expect(await refusal(join(exports, 'team-a', 'deeper'))).toBeUndefined();
  });

  it('refuses a folder outside the roots, with one non-retryable line naming the rule', async () => {
    const error = await refusal(outside);
    expect(error?.code).toBe('DEST_NOT_ALLOWED');
    expect(error?.retryable).toBe(false);
    expect(error?.toOneLine()).toMatch(
      /^DEST_NOT_ALLOWED: destination ".*outside" is not allowed: it is outside EXPORT_DEST and EXPORT_DEST_ALLOW \(/,
    );
    expect(error?.toOneLine()).not.toContain('\n');
    // A sibling whose name starts like the root is not inside it.
    expect((await refusal(`${exports}-other`))?.code).toBe('DEST_NOT_ALLOWED');
  });

  it('accepts a folder below an EXPORT_DEST_ALLOW root', async () => {
    expect(await refusal(join(outside, 'x'), [outside])).toBeUndefined();
    expect((await refusal(join(root, 'third'), [outside]))?.code).toBe('DEST_NOT_ALLOWED');
  });

  it('refuses a symlink inside EXPORT_DEST that leads out of it, wherever on the path it is', async () => {
    await symlink(outside, join(exports, 'escape'));
    const direct = await refusal(join(exports, 'escape'));
    expect(direct?.code).toBe('DEST_NOT_ALLOWED');
    expect(direct?.message).toContain('its real path (symlinks followed) is outside');
    expect(direct?.details['realPath']).toBe(outside);
    expect((await refusal(join(exports, 'escape', 'not-yet', 'there')))?.code).toBe('DEST_NOT_ALLOWED');
  });

  it('accepts a symlink that stays inside, and an EXPORT_DEST reached through a symlink', async () => {
    await mkdir(join(exports, 'real'));
    await symlink(join(exports, 'real'), join(exports, 'alias'));
    expect(await refusal(join(exports, 'alias', 'sub'))).toBeUndefined();
    const viaLink = join(root, 'exports-link');
    await symlink(exports, viaLink);
    expect(await refusal(join(viaLink, 'team'))).toBeUndefined();
    expect(await refusal(join(exports, 'team'), [viaLink])).toBeUndefined();
  });

  it('refuses a symlink that points nowhere: where it would lead is not known yet', async () => {
    await symlink(join(root, 'later'), join(exports, 'dangling'));
    const error = await refusal(join(exports, 'dangling', 'sub'));
    expect(error?.code).toBe('DEST_NOT_ALLOWED');
    expect(error?.message).toContain('points nowhere');
  });

  it('lets a path through a file pass, so that writing it fails with the file named', async () => {
    await writeFile(join(exports, 'a-file'), 'x');
    expect(await refusal(join(exports, 'a-file', 'sub'))).toBeUndefined();
  });

  it('matches S3 destinations by bucket and prefix at a "/" boundary', async () => {
    const roots = destinationRoots({ dest: 's3://reports/exports', destAllow: ['s3://other'] });
    const check = (dest: string) =>
      assertDestinationAllowed(dest, roots).then(
        () => 'ok',
        (e: ShiftExportError) => e.code,
      );
    expect(await check('s3://reports/exports')).toBe('ok');
    expect(await check('s3://reports/exports/')).toBe('ok');
    expect(await check('s3://reports/exports/team/a')).toBe('ok');
    expect(await check('s3://other/anything/below')).toBe('ok');
    expect(await check('s3://reports/exports2')).toBe('DEST_NOT_ALLOWED');
    expect(await check('s3://reports')).toBe('DEST_NOT_ALLOWED');
    expect(await check('s3://reports2/exports')).toBe('DEST_NOT_ALLOWED');
    expect(await check('/tmp/x')).toBe('DEST_NOT_ALLOWED');
    expect(await check('s3://reports/a/../exports')).toBe('DEST_INVALID');
  });

  it('refuses S3 when every root is a folder', async () => {
    expect((await refusal('s3://reports/exports'))?.code).toBe('DEST_NOT_ALLOWED');
  });
});
