// What a running export reports: the CLI draws a progress line from it, the worker turns it into
// throttled job.updateProgress calls.

export type ExportPhase = 'starting' | 'divisions' | 'fetching' | 'summaries' | 'publishing' | 'done';

export interface ExportProgress {
  readonly phase: ExportPhase;
  /** Raw rows received from the upstream so far. */
  readonly rows: number;
  readonly exported: number;
  readonly rejected: number;
}

export type ProgressListener = (progress: ExportProgress) => void;
