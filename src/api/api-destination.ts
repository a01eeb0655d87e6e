// Which destinations a control-API caller may choose. A bearer token lets a program queue exports,
// not pick where the worker writes on its own disk: a `dest` in a body must lie inside EXPORT_DEST
// or an EXPORT_DEST_ALLOW root, compared by real path (allowed-destination.ts), so a symlink inside
// EXPORT_DEST cannot lead out of it. Local folders must be absolute, because the API and the worker
// may run in different working directories and would resolve a relative one differently. The
// worker checks again when the job runs: this is the early, friendly answer.

import { isAbsolute } from 'node:path';
import { assertDestinationAllowed } from '../destinations/allowed-destination.js';
import type { ParsedDestination } from '../destination-address.js';
import { printable } from '../destinations/safe-names.js';
import { isShiftExportError } from '../errors.js';
import { ApiError } from './api-error.js';

const RULE =
  'through the API a destination must be an absolute folder inside EXPORT_DEST or EXPORT_DEST_ALLOW (symlinks resolved), or an s3:// root listed there; omit dest for EXPORT_DEST';

/** Throws a 400 ApiError when an API caller may not export to `dest`; a malformed `dest` throws DEST_INVALID. */
export async function assertApiDestination(
  dest: string | undefined,
  roots: readonly ParsedDestination[],
): Promise<void> {
  if (dest === undefined) return;
  const refuse = (): never => {
    throw new ApiError(400, 'invalid_body', `dest: ${printable(dest)} is refused: ${RULE}`);
  };
  if (!/^s3:\/\//i.test(dest) && !isAbsolute(dest)) refuse();
  try {
    await assertDestinationAllowed(dest, roots);
  } catch (error) {
    if (isShiftExportError(error) && error.code === 'DEST_NOT_ALLOWED') refuse();
    throw error;
  }
}
