// Which destinations a control-API caller may choose. A bearer token lets a program queue exports,
// not pick where the worker writes on its own disk: a local `dest` in a body must be an absolute
// folder inside EXPORT_DEST (when EXPORT_DEST is a folder); an s3:// destination is bounded by the
// worker's S3 credentials and is accepted. Relative folders are refused because the API and the
// worker may run in different working directories and would resolve them differently.

import { isAbsolute, relative } from 'node:path';
import { parseDestination } from '../destinations/parse-destination.js';
import { printable } from '../destinations/safe-names.js';
import { ApiError } from './api-error.js';

/** Throws a 400 ApiError when an API caller may not export to `dest`; `dest` has passed parseDestination. */
export function assertApiDestination(dest: string | undefined, exportDest: string): void {
  if (dest === undefined) return;
  const asked = parseDestination(dest);
  if (asked.kind === 's3') return;
  const base = parseDestination(exportDest);
  const inside =
    base.kind === 'local' &&
    isAbsolute(dest) &&
    (() => {
      const rel = relative(base.dir, asked.dir);
      return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
    })();
  if (!inside) {
    throw new ApiError(
      400,
      'invalid_body',
      `dest: ${printable(dest)} is refused: through the API a local folder must be an absolute path inside EXPORT_DEST; use s3://bucket/prefix or omit dest`,
    );
  }
}
