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

/** Tells the listener the progress with `next`'s members changed, the others as they were. */
export type ProgressReport = (next: Partial<ExportProgress>) => void;

/** The progress of one export, from `starting` with nothing read. */
export function progressReport(listener: ProgressListener | undefined): ProgressReport {
  let progress: ExportProgress = { phase: 'starting', rows: 0, exported: 0, rejected: 0 };
  return (next) => {
    progress = { ...progress, ...next };
    listener?.(progress);
  };
}
