// The errors a destination raises, and the one place that decides which S3 and file-system
// failures are worth another attempt. Messages name the action and the location, never a
// credential: SDK messages carry none, and URLs in messages lose their query (a presigned URL's
// signature and credential scope live there) and any user:password.

import { AbortedError, ShiftExportError, type ShiftExportErrorOptions } from '../errors.js';

export { DestinationInvalidError } from '../destination-address.js';

/**
 * A destination outside the roots this process may write to (EXPORT_DEST, EXPORT_DEST_ALLOW):
 * final, whoever asked for it — a job's data in Redis is not trusted to choose where we write.
 */
export class DestinationNotAllowedError extends ShiftExportError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('DEST_NOT_ALLOWED', message, { details });
  }
}

/**
 * Something the exporter did not create is where it would publish (a real folder or file at
 * `DIR/<from>_<to>`, a symlink to elsewhere). Final: it is left as it is, and only a person can
 * decide what to do with it.
 */
export class ForeignEntryError extends ShiftExportError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('DEST_NOT_OURS', message, { details });
  }
}

/** A published export or file that is not there. */
export class DestinationNotFoundError extends ShiftExportError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('DEST_NOT_FOUND', message, { details });
  }
}

/** Writing or reading the local export folder failed. */
export class LocalDestinationError extends ShiftExportError {
  constructor(message: string, options: ShiftExportErrorOptions & { readonly retryable: boolean }) {
    super('DEST_LOCAL', message, options);
  }
}

/** An S3 request failed (after the SDK's own retries). */
export class S3DestinationError extends ShiftExportError {
  constructor(message: string, options: ShiftExportErrorOptions & { readonly retryable: boolean }) {
    super('DEST_S3', message, options);
  }
}

/** The error an export stops with when its AbortSignal fires: the signal's own reason when it is ours. */
export function abortError(signal: AbortSignal): ShiftExportError {
  const reason: unknown = signal.reason;
  return reason instanceof ShiftExportError ? reason : new AbortedError('the export was aborted', reason);
}

// --- local ---------------------------------------------------------------------------------

/**
 * Codes that may clear up by themselves (space freed, descriptors released) — a full disk is
 * often the previous export's temporary folder or a log burst, and failing the nightly job for
 * good over it is worse than a few backed-off retries. Everything else (EACCES, EROFS, ENOTDIR,
 * ...) is a setup problem that another attempt cannot fix.
 */
const RETRYABLE_FS_CODES = new Set([
  'ENOSPC',
  'EDQUOT',
  'EMFILE',
  'ENFILE',
  'EBUSY',
  'EAGAIN',
  'EINTR',
  'EIO',
  'ETIMEDOUT',
]);

const FS_HINTS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied: make the folder writable by this user',
  EPERM: 'operation not permitted: make the folder writable by this user',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'a folder is in the way of a file',
  EEXIST: 'it already exists',
  ENOENT: 'it does not exist',
  ENAMETOOLONG: 'the path is too long',
};

export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Wraps a file-system failure of `action` on `path`; ShiftExportErrors pass through unchanged. */
export function toLocalDestinationError(error: unknown, action: string, path: string): ShiftExportError {
  if (error instanceof ShiftExportError) return error;
  const code = errnoCode(error);
  const reason =
    code === undefined
      ? safeMessage(error)
      : `${code}${FS_HINTS[code] === undefined ? '' : ` (${FS_HINTS[code]})`}`;
  return new LocalDestinationError(`cannot ${action} ${path}: ${reason}`, {
    retryable: code !== undefined && RETRYABLE_FS_CODES.has(code),
    cause: error,
    details: { path, ...(code === undefined ? {} : { errno: code }) },
  });
}

// --- S3 ------------------------------------------------------------------------------------

/** Error names (S3 error codes) that no retry can fix: credentials, permissions, bucket, request. */
const PERMANENT_S3_NAMES = new Set([
  'AccessDenied',
  'AllAccessDisabled',
  'AccountProblem',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidSecurity',
  'InvalidToken',
  'NotSignedUp',
  'NoSuchBucket',
  'InvalidBucketName',
  'InvalidArgument',
  'InvalidRequest',
  'InvalidStorageClass',
  'KMS.NotFoundException',
  'KMS.DisabledException',
  'KMS.AccessDeniedException',
  'EntityTooLarge',
  'EntityTooSmall',
  'MethodNotAllowed',
  'CredentialsProviderError',
]);

/** Names that look like a 4xx but are transient. */
const TRANSIENT_S3_NAMES = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'ExpiredToken',
  'TokenRefreshRequired',
  'OperationAborted',
  'NoSuchUpload',
  'TimeoutError',
]);

interface SdkErrorShape {
  readonly name?: unknown;
  readonly Code?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

/** The S3 error code (e.g. NoSuchBucket) or Node error code (e.g. ECONNREFUSED) of a thrown value. */
export function s3ErrorName(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const shape = error as SdkErrorShape;
  for (const candidate of [shape.Code, shape.code, shape.name]) {
    if (typeof candidate === 'string' && candidate !== '' && candidate !== 'Error') return candidate;
  }
  return undefined;
}

export function s3HttpStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as SdkErrorShape).$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

/** Whether another attempt can help: 5xx, 429, throttling and network failures can, 403/404/400 cannot. */
export function isRetryableS3Error(error: unknown): boolean {
  const name = s3ErrorName(error);
  const status = s3HttpStatus(error);
  if (name !== undefined && PERMANENT_S3_NAMES.has(name)) return false;
  if (name !== undefined && TRANSIENT_S3_NAMES.has(name)) return true;
  if (status !== undefined) return status >= 500 || status === 429 || status === 408;
  // No HTTP status: the request never got an answer (refused, reset, DNS, timeout).
  return true;
}

/** True when S3 says the object (or key) is not there. */
export function isS3NotFound(error: unknown): boolean {
  const name = s3ErrorName(error);
  return (
    name === 'NoSuchKey' || name === 'NotFound' || (name !== 'NoSuchBucket' && s3HttpStatus(error) === 404)
  );
}

/** Wraps an S3 failure of `action` at `location`; ShiftExportErrors pass through unchanged. */
export function toS3DestinationError(error: unknown, action: string, location: string): ShiftExportError {
  if (error instanceof ShiftExportError) return error;
  const name = s3ErrorName(error);
  const status = s3HttpStatus(error);
  const what = [name, status === undefined ? undefined : `HTTP ${status}`]
    .filter((p) => p !== undefined)
    .join(', ');
  const message = safeMessage(error);
  const reason = what === '' ? message : message === '' || message === name ? what : `${what}: ${message}`;
  return new S3DestinationError(`S3 ${action} failed for ${location}: ${reason}`, {
    retryable: isRetryableS3Error(error),
    cause: error,
    details: {
      location,
      ...(name === undefined ? {} : { s3Code: name }),
      ...(status === undefined ? {} : { httpStatus: status }),
    },
  });
}

/** The message of a thrown value with URL queries and user:password parts removed. */
export function safeMessage(error: unknown): string {
  const raw = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return raw
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1')
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#]*)\?[^\s#]*/gi, '$1?…')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}
