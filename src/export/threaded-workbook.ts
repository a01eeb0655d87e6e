// shifts.xlsx rendered on another core: the same ShiftsWorkbookWriter, run in a worker thread
// (workbook-thread.ts), while this thread keeps ingesting and writing the CSVs. Shifts go over in
// batches of JSON text; the workbook's bytes come back and are written into the destination here,
// each chunk acknowledged once the destination took it.
//
// Memory stays bounded both ways: at most WINDOW_BATCHES unanswered batches of shifts (addShift
// then returns a promise to await), and at most a few MiB of workbook bytes the destination has not
// taken (the thread's writer waits). The bytes are the same as the in-thread writer's.
// Opt-in (`openWorkbook(…, { renderIn: 'thread' })`): workbook-output.ts says why it is not the default.

import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { RejectedRow } from '../domain/rejected-row.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import type { ExportSummaries } from '../domain/summary.js';
import { ShiftExportError } from '../errors.js';
import type { ShiftsWorkbookOptions, WorkbookAbout } from '../render/xlsx/shifts-workbook-writer.js';
import { XlsxWriteError, XlsxWriterClosedError } from '../render/xlsx/xlsx-write-error.js';
import type {
  FromWorkbookThread,
  ThreadErrorData,
  ToWorkbookThread,
  WorkbookThreadData,
} from './workbook-thread-protocol.js';

/** Shifts per message: large enough that the per-message cost vanishes, small enough to stay cheap. */
export const BATCH_ROWS = 500;
/** Unanswered batches before addShift asks the caller to wait. */
export const WINDOW_BATCHES = 8;
const REJECTED_BATCH_ROWS = 100;
/** How long an abort waits for the thread to clean up (its temp file) before it is terminated. */
const ABORT_GRACE_MS = 5_000;

/** A failure reported by the workbook thread, with the code and retryability it had there. */
export class WorkbookThreadError extends ShiftExportError {
  constructor(data: ThreadErrorData) {
    super(data.code, data.message, { retryable: data.retryable });
  }
}

type State = 'open' | 'finishing' | 'finished' | 'aborted';

interface Pending {
  resolve(): void;
  reject(error: Error): void;
}

// A WorkbookOutput (checked where openWorkbook returns it): naming the interface here would make
// this module and workbook-output.ts import each other.
export class ThreadedWorkbook {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private shifts: ShiftRecord[] = [];
  private rejected: RejectedRow[] = [];
  private state: State = 'open';
  private failure: Error | undefined;
  private roomWaiter: Pending | undefined;
  private ended = false;
  private onEnded: (() => void) | undefined;

  constructor(
    private readonly sink: Writable,
    options: ShiftsWorkbookOptions,
    workerUrl: URL,
  ) {
    const data: WorkbookThreadData = { options };
    this.worker = new Worker(workerUrl, { workerData: data });
    this.worker.on('message', (message: FromWorkbookThread) => this.onMessage(message));
    this.worker.on('error', (error) => this.fail(new XlsxWriteError('the workbook thread failed', error)));
    this.worker.on('exit', (code) => {
      if (this.state === 'open' || this.state === 'finishing') {
        this.fail(new XlsxWriteError(`the workbook thread exited early (code ${code})`));
      }
    });
    sink.on('error', (error) => this.fail(new XlsxWriteError('the workbook destination failed', error)));
  }

  addShift(record: ShiftRecord): Promise<void> | undefined {
    this.assertOpen('addShift');
    if (this.failure !== undefined) return Promise.reject(this.failure);
    this.shifts.push(record);
    return this.shifts.length >= BATCH_ROWS ? this.flushShifts() : undefined;
  }

  addRejected(row: RejectedRow): Promise<void> | undefined {
    this.assertOpen('addRejected');
    if (this.failure !== undefined) return Promise.reject(this.failure);
    this.rejected.push(row);
    return this.rejected.length >= REJECTED_BATCH_ROWS ? this.flushRejected() : undefined;
  }

  async finish(summaries: ExportSummaries, about: WorkbookAbout): Promise<void> {
    this.assertOpen('finish');
    this.state = 'finishing';
    try {
      await this.flushShifts();
      await this.flushRejected();
      await this.request({ type: 'finish', seq: ++this.seq, summaries, about });
      await this.endOfBytes();
      if (this.failure !== undefined) throw this.failure;
      this.state = 'finished';
    } catch (error) {
      await this.abort(error);
      throw this.failure ?? error;
    } finally {
      await this.worker.terminate();
    }
  }

  async abort(error: unknown): Promise<void> {
    if (this.state === 'finished' || this.state === 'aborted') return;
    this.state = 'aborted';
    const reason =
      error instanceof Error
        ? error
        : new XlsxWriteError(`the workbook was abandoned: ${String(error)}`, error);
    this.fail(reason);
    // The destination first, so that it fails instead of publishing a truncated file.
    if (!this.sink.destroyed) this.sink.destroy(reason);
    const seq = ++this.seq;
    const answered = new Promise<void>((resolve) =>
      this.pending.set(seq, { resolve, reject: () => resolve() }),
    );
    this.worker.postMessage({ type: 'abort', seq, message: reason.message } satisfies ToWorkbookThread);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, ABORT_GRACE_MS)));
    await Promise.race([answered, grace, once(this.worker, 'exit')]).catch(() => undefined);
    clearTimeout(timer);
    await this.worker.terminate();
  }

  private flushShifts(): Promise<void> | undefined {
    if (this.shifts.length === 0) return undefined;
    const json = JSON.stringify(this.shifts);
    this.shifts = [];
    return this.send({ type: 'shifts', seq: ++this.seq, json });
  }

  private flushRejected(): Promise<void> | undefined {
    if (this.rejected.length === 0) return undefined;
    const rows = this.rejected;
    this.rejected = [];
    return this.send({ type: 'rejected', seq: ++this.seq, rows });
  }

  /** Sends without waiting for the answer unless the window is full. */
  private send(message: ToWorkbookThread & { seq: number }): Promise<void> | undefined {
    this.request(message).catch(() => undefined); // a failure reaches the caller through this.failure
    if (this.pending.size < WINDOW_BATCHES) return undefined;
    return new Promise<void>((resolve, reject) => (this.roomWaiter = { resolve, reject }));
  }

  private request(message: ToWorkbookThread & { seq: number }): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const answered = new Promise<void>((resolve, reject) =>
      this.pending.set(message.seq, { resolve, reject }),
    );
    this.worker.postMessage(message);
    return answered;
  }

  private onMessage(message: FromWorkbookThread): void {
    switch (message.type) {
      case 'chunk': {
        const size = message.bytes.byteLength;
        const chunk = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, size);
        this.sink.write(chunk, (error) => {
          if (error == null) this.worker.postMessage({ type: 'ack', bytes: size } satisfies ToWorkbookThread);
        });
        return;
      }
      case 'end':
        this.sink.end();
        this.ended = true;
        this.onEnded?.();
        return;
      case 'done':
        this.answer(message.seq)?.resolve();
        this.makeRoom();
        return;
      case 'failed':
        this.fail(new WorkbookThreadError(message.error));
        return;
    }
  }

  private answer(seq: number): Pending | undefined {
    const pending = this.pending.get(seq);
    this.pending.delete(seq);
    return pending;
  }

  private makeRoom(): void {
    if (this.roomWaiter !== undefined && this.pending.size < WINDOW_BATCHES) {
      const waiter = this.roomWaiter;
      this.roomWaiter = undefined;
      waiter.resolve();
    }
  }

  private endOfBytes(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise<void>((resolve) => (this.onEnded = resolve));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(this.failure);
    const waiter = this.roomWaiter;
    this.roomWaiter = undefined;
    waiter?.reject(this.failure);
    this.onEnded?.();
  }

  private assertOpen(operation: string): void {
    if (this.state !== 'open') throw new XlsxWriterClosedError(operation);
  }
}
