// Runs one export on a worker thread of its own (export-thread-entry.ts), so that a worker with
// WORKER_CONCURRENCY=2 computes two exports on two cores, and the main thread, which renews the
// jobs' locks, is never held up by one. A thread per export, not a pool: starting one costs
// little next to an export (docs/performance.md), its memory is returned when it ends, and a thread
// that crashes takes nothing else with it.
//
// The main thread keeps what belongs to the process: the job (progress), the logger's sink (the
// thread's lines are logged again here, under the job's logger) and the shutdown signal (passed on
// as a message). A thread that ends without saying how its export ended — an uncaught error, out
// of memory, terminated — settles as a retryable EXPORT_THREAD_FAILED; it published nothing, since
// an export publishes its manifest last.

import { channel } from 'node:diagnostics_channel';
import { Worker } from 'node:worker_threads';
import { ShiftExportError } from '../src/errors.js';
import type { ExportProgress } from '../src/export/progress.js';
import type { Logger } from '../src/logger.js';
import type { ExportJobResult } from '../src/queue/export-job-result.js';
import type { ExportOutcome } from '../src/queue/export-metrics.js';
import type {
  ExportThreadFailure,
  ExportThreadInput,
  FromExportThread,
  ToExportThread,
} from './export-thread-messages.js';

/** The export thread ended without reporting how its export ended. */
export class ExportThreadFailedError extends ShiftExportError {
  constructor(message: string, cause?: unknown) {
    super('EXPORT_THREAD_FAILED', message, { retryable: true, cause });
  }
}

/**
 * Published with `{ jobId, thread }` when an export thread starts: for diagnostics and for tests
 * that must reach a real thread (to terminate it).
 */
export const exportThreadStarted = channel('shift-export:export-thread-started');

export type SettledExport =
  | { readonly type: 'completed'; readonly summary: ExportJobResult; readonly outcome: ExportOutcome }
  | { readonly type: 'failed'; readonly failure: ExportThreadFailure; readonly outcome: ExportOutcome };

export interface ExportThreadOptions {
  readonly jobId: string | undefined;
  /** The job's logger: the thread's lines are logged again through it. */
  readonly log: Logger;
  readonly onProgress: (progress: ExportProgress) => void;
  readonly signal: AbortSignal | undefined;
}

/** pino's own members of a line; the job's logger writes its own. */
const LINE_MEMBERS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg']);

/** Runs the export of `input` on a new thread; resolves once the thread has ended, never rejects. */
export function exportInThread(
  input: ExportThreadInput,
  options: ExportThreadOptions,
): Promise<SettledExport> {
  const { log, signal } = options;
  const thread = new Worker(threadEntry(), { workerData: input });
  if (exportThreadStarted.hasSubscribers) exportThreadStarted.publish({ jobId: options.jobId, thread });
  const onAbort = (): void => {
    const reason = signal?.reason as unknown;
    try {
      thread.postMessage({ type: 'abort', reason } satisfies ToExportThread);
    } catch {
      // A reason that cannot be cloned (an error with a socket attached…) still aborts, as text.
      thread.postMessage({ type: 'abort', reason: String(reason) } satisfies ToExportThread);
    }
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });

  return new Promise<SettledExport>((resolve) => {
    let settled: SettledExport | undefined;
    let threadError: unknown;
    thread.on('message', (message: FromExportThread) => {
      switch (message.type) {
        case 'log':
          relayLine(log, message.line);
          break;
        case 'progress':
          options.onProgress(message.progress);
          break;
        default:
          settled = message;
          // Its work is done: whatever it may still hold open (a keep-alive socket, a timer) must
          // not keep the job waiting for it to end.
          void thread.terminate();
      }
    });
    thread.on('error', (error) => (threadError = error));
    thread.on('exit', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (settled !== undefined) return resolve(settled);
      const reason = threadError === undefined ? `exit code ${code}` : String(threadError);
      const error = new ExportThreadFailedError(
        `the export thread ended before its export did (${reason}); nothing was published`,
        threadError,
      );
      log.error({ err: threadError, exitCode: code }, 'export thread failed');
      resolve({
        type: 'failed',
        failure: { line: error.toOneLine(), terminal: false },
        outcome: { status: 'failed', upstreamRetries: 0 },
      });
    });
  });
}

/** Logs a line the thread's pino wrote, at its level, through the job's logger. */
function relayLine(log: Logger, line: string): void {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    log.warn({ line }, 'export thread wrote a line that is not JSON');
    return;
  }
  const label = log.levels.labels[Number(parsed['level'])] ?? 'info';
  const fields = Object.fromEntries(Object.entries(parsed).filter(([key]) => !LINE_MEMBERS.has(key)));
  const msg = typeof parsed['msg'] === 'string' ? parsed['msg'] : undefined;
  const write = (log as unknown as Record<string, (obj: object, msg?: string) => void>)[label];
  write?.call(log, fields, msg);
}

/**
 * The thread's module. Threads run JavaScript: from the build, the file beside this one; from the
 * TypeScript sources (the tests), the build's copy (`npm test` builds first).
 */
function threadEntry(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts')
    ? new URL('../dist/jobs/export-thread-entry.js', here)
    : new URL('./export-thread-entry.js', here);
}
