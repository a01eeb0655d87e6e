// Where this process may write: EXPORT_DEST and the roots of EXPORT_DEST_ALLOW. One rule, checked by
// the API and the producers for a quick answer, and authoritatively by the worker on every job,
// because a job's data in Redis may come from anyone who can reach Redis or the dashboard.
//
// A folder is inside a root when its real path is: the nearest existing ancestor is resolved with
// realpath(3) (every symlink on the way followed) and the rest of the path appended, and the same
// is done to the root. A symlink inside a root that leads out of it is therefore refused, and so is
// a symlink that points nowhere (what it would lead to cannot be known until something creates
// it). An S3 destination is inside a root with the same bucket and a prefix equal to the root's or
// below it at a "/" boundary (`s3://b/exports` covers `s3://b/exports/team`, not `s3://b/exports2`).

import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { ExportConfig } from '../config/export-config.js';
import { DestinationNotAllowedError, errnoCode } from './destination-errors.js';
import { parseDestination, type ParsedDestination } from '../destination-address.js';
import { printable } from './safe-names.js';

/** EXPORT_DEST first, then EXPORT_DEST_ALLOW, parsed (relative folders against the working folder). */
export function destinationRoots(
  config: Pick<ExportConfig, 'dest' | 'destAllow'>,
): readonly ParsedDestination[] {
  return [config.dest, ...config.destAllow].map((text) => parseDestination(text));
}

function describeDestination(destination: ParsedDestination): string {
  if (destination.kind === 'local') return destination.dir;
  return destination.prefix === ''
    ? `s3://${destination.bucket}`
    : `s3://${destination.bucket}/${destination.prefix}`;
}

type RealPath = { readonly real: string } | { readonly unresolved: string };

/**
 * The real path of `path`, which need not exist: its nearest existing ancestor resolved, the rest
 * appended. ENOTDIR counts as missing (mkdir then fails with a message that names the file in the way).
 */
async function realPathOf(path: string): Promise<RealPath> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return { real: join(await realpath(current), ...missing) };
    } catch (error) {
      const code = errnoCode(error) ?? 'error';
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        return { unresolved: `its real path cannot be resolved (${code})` };
      const present = await lstat(current).then(
        () => true,
        () => false,
      );
      if (present) return { unresolved: `${printable(current)} is a symlink that points nowhere` };
      const parent = dirname(current);
      if (parent === current) return { unresolved: 'no part of it exists' };
      missing.unshift(basename(current));
      current = parent;
    }
  }
}

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function s3Within(root: ParsedDestination & { kind: 's3' }, dest: ParsedDestination & { kind: 's3' }) {
  return (
    root.bucket === dest.bucket &&
    (root.prefix === '' || dest.prefix === root.prefix || dest.prefix.startsWith(`${root.prefix}/`))
  );
}

/**
 * Resolves with the parsed destination when `dest` lies inside one of `roots`; otherwise throws
 * DestinationNotAllowedError (DEST_NOT_ALLOWED, never retryable) with one line naming the roots.
 * A malformed `dest` throws DEST_INVALID (parseDestination).
 */
export async function assertDestinationAllowed(
  dest: string | ParsedDestination,
  roots: readonly ParsedDestination[],
): Promise<ParsedDestination> {
  const asked = typeof dest === 'string' ? parseDestination(dest) : dest;
  const shown = printable(typeof dest === 'string' ? dest : describeDestination(asked));
  const allowed = `EXPORT_DEST and EXPORT_DEST_ALLOW (${roots.map(describeDestination).join(', ')})`;
  if (asked.kind === 's3') {
    if (roots.some((root) => root.kind === 's3' && s3Within(root, asked))) return asked;
    throw new DestinationNotAllowedError(`destination ${shown} is not allowed: it is outside ${allowed}`);
  }
  const localRoots = roots.filter((root) => root.kind === 'local');
  const [target, ...resolvedRoots] = await Promise.all([
    realPathOf(asked.dir),
    ...localRoots.map((root) => realPathOf(root.dir)),
  ]);
  if (target === undefined || 'unresolved' in target) {
    throw new DestinationNotAllowedError(
      `destination ${shown} is not allowed: ${target?.unresolved ?? 'no part of it exists'}`,
    );
  }
  if (resolvedRoots.some((root) => 'real' in root && isWithin(root.real, target.real))) return asked;
  // The real path goes to the details (logs), not the message an API caller reads.
  const how = target.real === asked.dir ? 'it is' : 'its real path (symlinks followed) is';
  throw new DestinationNotAllowedError(`destination ${shown} is not allowed: ${how} outside ${allowed}`, {
    realPath: target.real,
  });
}
