import { ShiftExportError } from '../errors.js';

/**
 * The groups' statistics could not be spilled to, or read back from, the temp folder (TMPDIR full
 * or unwritable). Retryable: the folder may have room on the next attempt; the export cannot go
 * on without them, as its summaries would be incomplete.
 */
export class GroupSpillError extends ShiftExportError {
  constructor(message: string, cause: unknown) {
    super('GROUP_SPILL_FAILED', message, { retryable: true, cause });
  }
}

/** Runs `io`, turning what it throws into a GroupSpillError that names the file and the cause. */
export function spillIo<T>(what: string, path: string, io: () => T): T {
  try {
    return io();
  } catch (error) {
    if (error instanceof GroupSpillError) throw error;
    const cause = error instanceof Error ? error.message : String(error);
    throw new GroupSpillError(
      `the group statistics could not be ${what} the temp file ${path}: ${cause}`,
      error,
    );
  }
}
