// The change recorder (src/changes/) as a member of the fan-out: it notes every exported row while
// the files are written. What it found is concluded as a step of its own (runExport calls
// ChangeRecorder.conclude) before the outputs finish, since the workbook's Overview shows it.

import type { ChangeRecorder } from '../changes/change-recorder.js';
import type { ExportBatch, TableOutput } from './table-output.js';

export function changeRecording(changes: ChangeRecorder): TableOutput {
  return {
    write(batch: ExportBatch): Promise<void> {
      for (const record of batch.shifts) changes.record(record);
      const worked = batch.worked;
      if (worked !== undefined) changes.recordHashes(worked.ids, worked.hashes);
      return Promise.resolve();
    },
    finish: () => Promise.resolve(),
    abort: () => Promise.resolve(),
  };
}
