// The HTTP headers a stored file is served with: its MIME type, and a Content-Disposition that
// makes a browser save it as `<from>_<to>_<file>` (an export's files all share a few names, so the
// period goes into the saved name). Built per RFC 6266 with an RFC 5987 `filename*` for non-ASCII
// names and a plain ASCII fallback that cannot break out of its quotes.

import { periodKey, type Period } from '../domain/period.js';

export const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  json: 'application/json',
  /** IANA, registered 2024. */
  parquet: 'application/vnd.apache.parquet',
} as const;

/** RFC 5987 attr-char encoding: encodeURIComponent leaves ' ( ) * unescaped, which attr-char does not allow. */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `attachment; filename="<from>_<to>_<file>"; filename*=UTF-8''<same, percent-encoded>`. */
export function contentDisposition(period: Period, fileName: string): string {
  const saved = `${periodKey(period)}_${fileName}`;
  const fallback = saved.replace(/[^A-Za-z0-9._-]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(saved)}`;
}
