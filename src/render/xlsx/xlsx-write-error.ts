// The errors of the workbook writer. A failure while bytes are being produced (the destination
// stream broke, the temp file of rejected rows could not be written) may pass on another attempt;
// using the writer after it finished or aborted is a bug and never will.

import { ShiftExportError } from '../../errors.js';

export class XlsxWriteError extends ShiftExportError {
  constructor(message: string, cause?: unknown) {
    super('XLSX_WRITE_FAILED', message, { retryable: true, cause });
  }
}

export class XlsxWriterClosedError extends ShiftExportError {
  constructor(operation: string) {
    super('XLSX_WRITER_CLOSED', `${operation} was called after the workbook was finished or aborted`);
  }
}
