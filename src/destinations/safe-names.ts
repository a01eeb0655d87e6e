// What we accept as a name or path inside a destination. File names and export ids are ours, but
// they become folder names and S3 keys, so they are checked once here; paths come back from
// callers (the API's download route), so traversal is refused before any file or key is touched.

import { periodKey, type Period } from '../domain/period.js';
import { hasControlCharacters } from '../one-line.js';
import { DestinationInvalidError } from './destination-errors.js';

export const MANIFEST_NAME = 'manifest.json';

/** For messages: the text with control characters shown as \u escapes. */
export function printable(text: string): string {
  return JSON.stringify(text);
}

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export function isFileName(text: string): boolean {
  return FILE_NAME.test(text);
}

/** A file of an export: one segment of letters, digits, `.`, `_`, `-`; not manifest.json. */
export function assertFileName(name: string): void {
  if (!FILE_NAME.test(name)) {
    throw new DestinationInvalidError(
      `file name ${printable(name)} is not allowed: use letters, digits, ".", "_" and "-", starting with a letter or digit`,
    );
  }
  if (name === MANIFEST_NAME) {
    throw new DestinationInvalidError(
      `${MANIFEST_NAME} is written by publish(), not as a file of the export`,
    );
  }
}

/** Folders a file of an export may sit in (`divisions/<division_id>/shifts.csv`: two). */
const MAX_FILE_FOLDERS = 2;

/** A file's path in an export: file-name segments joined by "/", at most two folders deep. */
export function isFilePath(text: string): boolean {
  const segments = text.split('/');
  return segments.length <= MAX_FILE_FOLDERS + 1 && segments.every(isFileName);
}

/**
 * A file of an export, maybe in folders of its own (a split export's `divisions/12/shifts.csv`):
 * each segment a file name as assertFileName says; never manifest.json at the top.
 */
export function assertFilePath(path: string): void {
  const segments = path.split('/');
  if (segments.length > MAX_FILE_FOLDERS + 1)
    throw new DestinationInvalidError(
      `file path ${printable(path)} is not allowed: at most ${MAX_FILE_FOLDERS} folders deep`,
    );
  for (const segment of segments) assertFileName(segment);
  if (segments.length > 1 && segments[0] === MANIFEST_NAME)
    throw new DestinationInvalidError(
      `file path ${printable(path)} is not allowed: it starts with ${MANIFEST_NAME}`,
    );
}

/** The last segment of a file path: the file's name. */
export function fileNameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

// No "." in an export id: it is a segment of `.<period>.<id>.partial` folder names.
const EXPORT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function isExportId(text: string): boolean {
  return EXPORT_ID.test(text);
}

export function assertExportId(exportId: string): void {
  if (!EXPORT_ID.test(exportId)) {
    throw new DestinationInvalidError(
      `export id ${printable(exportId)} is not allowed: use letters, digits, "_" and "-" (at most 128)`,
    );
  }
}

/**
 * Splits a relative path as written in a manifest (`shifts.csv`, `<exportId>/shifts.csv`) into
 * segments, refusing absolute paths, `.`/`..` segments, empty segments, backslashes and control
 * characters.
 */
export function relativePathSegments(path: string): string[] {
  const refuse = (why: string): never => {
    throw new DestinationInvalidError(`path ${printable(path)} is refused: ${why}`);
  };
  if (path === '') refuse('it is empty');
  if (hasControlCharacters(path)) refuse('it contains control characters');
  if (path.startsWith('/')) refuse('it is absolute');
  if (path.includes('\\')) refuse('it contains a backslash');
  const segments = path.split('/');
  for (const segment of segments) {
    if (segment === '') refuse('it has an empty segment');
    if (segment === '.' || segment === '..') refuse(`it has a "${segment}" segment`);
  }
  return segments;
}

const PERIOD_KEY = /^\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}$/;

/** `<from>_<to>`, checked: a period that is not two YYYY-MM-DD dates never reaches a path or key. */
export function safePeriodKey(period: Period): string {
  const key = periodKey(period);
  if (!PERIOD_KEY.test(key))
    throw new DestinationInvalidError(`period ${printable(key)} is not two YYYY-MM-DD dates`);
  return key;
}

/** publish() refuses a manifest that is not JSON: readers parse it, and half a file is worse than none. */
export function assertManifestJson(text: string): void {
  try {
    JSON.parse(text);
  } catch {
    throw new DestinationInvalidError('the manifest is not valid JSON');
  }
}
