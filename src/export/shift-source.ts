// What an export needs from the upstream: the division list and the report, as batches of raw rows.
// WfmClient provides it; naming the narrow need keeps the use case independent of HTTP details.

import type { UtcWindow } from '../domain/period.js';
import type { RawRows } from '../domain/raw-rows.js';
import type { CutParser } from '../wfm/parsed-cuts.js';
import type { ReadProgress } from '../wfm/report-reader.js';
import type { RowRange } from '../wfm/resume-position.js';
import type { Division, DivisionListQuery } from 'wfm-contract/division';

export interface ShiftSource {
  listDivisions(query: DivisionListQuery & { signal?: AbortSignal | undefined }): Promise<Division[]>;
  readShifts(options: {
    window?: UtcWindow;
    signal?: AbortSignal | undefined;
    /** Rows, requests, retries and bytes (on the wire and decoded) of the read so far. */
    onProgress?: (progress: ReadProgress) => void;
  }): AsyncIterable<RawRows>;
  /**
   * The report as ranges of cuts, each parsed by `parser` (on export threads); the resume position
   * comes from the ids the parses return. A source without it is read with readShifts.
   */
  readParsedShifts?<B>(
    parser: CutParser<B>,
    options: {
      window?: UtcWindow;
      signal?: AbortSignal | undefined;
      onProgress?: (progress: ReadProgress) => void;
    },
  ): AsyncIterable<readonly RowRange<B>[]>;
}
