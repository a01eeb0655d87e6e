// Where an export may go, as written in `--dest` / EXPORT_DEST / EXPORT_DEST_ALLOW (shared:
// configuration checks it at start, the destinations act on it): `s3://bucket[/prefix]` or a local folder. Refused with DEST_INVALID,
// before anything is written: control characters anywhere, `..` segments (in a prefix or a
// folder: say where you mean), a prefix with a leading `/` or an empty segment (`a//b` would be a
// different key than `a/b` on S3 but the same folder on disk), other URL schemes, and bucket
// names S3 would refuse. A local folder may be absolute or relative (resolved against `cwd`).

import { resolve } from 'node:path';
import { ShiftExportError } from './errors.js';
import { hasControlCharacters } from './one-line.js';

/** A destination text, prefix, path or name that we refuse (`..`, control characters...). */
export class DestinationInvalidError extends ShiftExportError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('DEST_INVALID', message, { details });
  }
}

export type ParsedDestination =
  | { readonly kind: 'local'; readonly dir: string }
  | { readonly kind: 's3'; readonly bucket: string; readonly prefix: string };

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** S3 keys are at most 1,024 bytes; leave room for `<from>_<to>/<exportId>/<file>`. */
const MAX_PREFIX_BYTES = 768;

export function parseDestination(text: string, cwd: string = process.cwd()): ParsedDestination {
  const refuse = (why: string): never => {
    throw new DestinationInvalidError(`destination ${JSON.stringify(text)} is refused: ${why}`);
  };
  if (text.trim() === '') refuse('it is empty (give a folder or s3://bucket/prefix)');
  if (hasControlCharacters(text)) refuse('it contains control characters');

  if (/^s3:\/\//i.test(text)) {
    const rest = text.slice('s3://'.length);
    const slash = rest.indexOf('/');
    const bucket = slash === -1 ? rest : rest.slice(0, slash);
    const rawPrefix = slash === -1 ? '' : rest.slice(slash + 1);
    if (!BUCKET.test(bucket) || bucket.includes('..')) {
      refuse(`"${bucket}" is not a valid bucket name (3-63 of a-z, 0-9, "." and "-")`);
    }
    // One trailing slash is the usual way to write a prefix; a leading one is not.
    const prefix = rawPrefix.endsWith('/') ? rawPrefix.slice(0, -1) : rawPrefix;
    if (prefix.startsWith('/')) refuse('the prefix starts with "/"');
    if (prefix !== '') {
      for (const segment of prefix.split('/')) {
        if (segment === '') refuse('the prefix has an empty segment ("//")');
        if (segment === '.' || segment === '..') refuse(`the prefix has a "${segment}" segment`);
      }
    }
    if (Buffer.byteLength(prefix) > MAX_PREFIX_BYTES)
      refuse(`the prefix is longer than ${MAX_PREFIX_BYTES} bytes`);
    return { kind: 's3', bucket, prefix };
  }

  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1];
  if (scheme !== undefined) refuse(`"${scheme}://" is not supported (use a folder or s3://bucket/prefix)`);
  if (text.split(/[\\/]/).includes('..')) refuse('it has a ".." segment (give the folder without "..")');
  return { kind: 'local', dir: resolve(cwd, text) };
}
