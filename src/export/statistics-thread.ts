// The export's statistics on a thread of their own (EXPORT_STATISTICS_THREAD): the export's thread
// packs each batch's exported rows (shift-statistics.ts, StatisticsBatchPacker) and sends them, in
// report order; the thread counts them with the same aggregate (aggregate.ts) and, at the end, sends
// the summaries back. A user or shop table that spilled past EXPORT_MEMORY_MB comes back as the
// file of its sorted runs (summary-sorter.ts, SpilledTable): the export's thread opens it and reads
// the table from there, as often as its writers need, as it would its own.
//
// The budget is the export's: the thread measures itself, and adds what the export's thread and
// the export threads held at the last batch sent; what the thread holds, it reports with every
// batch counted, and the export's gauge adds it (export-core.ts). Its runs go into a folder of its
// own in the export's temp folder, removed whole when the export ends, whatever became of the
// thread (one that died has the files it held open closed as it ends: answering-thread.ts). At
// most MAX_WAITING batches wait for it: past that, the export's thread waits (caughtUp), so that a
// slower thread never makes memory grow with the rows.

import type { ExportSummaries, ShopSummary, SummaryRows, UserSummary } from '../domain/summary.js';
import { SHOP_LEVEL, USER_LEVEL } from '../pipeline/aggregate.js';
import type { DivisionDirectory } from '../pipeline/enrich.js';
import { DEFAULT_GAUGE, measuredMemory, type GroupMemory } from '../pipeline/group-memory.js';
import { FileRuns, type ReadableRuns } from '../pipeline/record-runs.js';
import { GroupSpillError } from '../pipeline/spill-error.js';
import { readSpilledTable, type SpilledTable } from '../pipeline/summary-sorter.js';
import type { TempFolder } from '../temp-file.js';
import { AnsweringThread, RenderThreadFailedError, threadModule } from './answering-thread.js';
import type { WorkedCut } from './cut-work.js';
import { StatisticsBatchPacker, type ShiftStatistics, type StatisticsBatch } from './shift-statistics.js';

/** Batches sent and not yet counted, at most, before the export's thread waits for the thread. */
const MAX_WAITING = 4;

/** What the thread is started with. */
export interface StatisticsThreadSetup {
  readonly divisions: DivisionDirectory;
  /** EXPORT_MEMORY_MB, and the folder its runs go to; none: every group stays in memory. */
  readonly memory?: { readonly budgetBytes: number; readonly folder: string; readonly every: number };
}

export type ToStatisticsThread =
  | { readonly kind: 'rows'; readonly batch: StatisticsBatch; readonly othersBytes: number }
  | { readonly kind: 'finish' }
  | { readonly kind: 'dispose' };

/** A user or shop table as it crosses: an array, or the file of its sorted runs. */
export type TableAcross<S> = { readonly rows: readonly S[] } | { readonly spilled: SpilledTable };

export type SummariesAcross = Omit<ExportSummaries, 'shops' | 'users'> & {
  readonly shops: TableAcross<ShopSummary>;
  readonly users: TableAcross<UserSummary>;
};

export type FromStatisticsThread = { readonly seq: number } & (
  | { readonly counted: number; readonly heldBytes: number }
  | { readonly summaries: SummariesAcross }
  | { readonly disposed: true }
  | { readonly error: string; readonly code?: string }
);

type Answer =
  { readonly heldBytes: number } | { readonly summaries: SummariesAcross } | { readonly disposed: true };

/** The statistics of an export, counted on a thread of their own. */
export class StatisticsThread implements ShiftStatistics {
  readonly #thread: AnsweringThread<ToStatisticsThread, FromStatisticsThread, Answer>;
  readonly #packer = new StatisticsBatchPacker();
  readonly #temp: TempFolder | undefined;
  /** What the export's thread and the export threads hold, in bytes, as the thread's budget adds it. */
  readonly #othersBytes: () => number;
  /** The batches sent, in order, each settling once counted. */
  readonly #waiting: Promise<unknown>[] = [];
  #heldBytes = 0;
  #closed: Promise<void> | undefined;

  /** `memory`: the export's budget and temp folder; `othersBytes`: what the export's other threads hold. */
  constructor(divisions: DivisionDirectory, memory: GroupMemory | undefined, othersBytes: () => number) {
    this.#temp = memory?.temp;
    this.#othersBytes = othersBytes;
    const setup: StatisticsThreadSetup = {
      divisions,
      ...(memory === undefined
        ? {}
        : {
            memory: {
              budgetBytes: memory.budgetBytes,
              folder: memory.temp.folder('statistics'),
              every: (memory.gauge ?? DEFAULT_GAUGE).every,
            },
          }),
    };
    this.#thread = new AnsweringThread({
      entry: threadModule('statistics-thread-entry'),
      workerData: setup,
      name: 'the statistics thread',
      closedMessage: 'the statistics thread was closed',
      settle: (answer: FromStatisticsThread): Answer | Error => {
        if ('error' in answer) return threadError(answer.error, answer.code);
        if ('counted' in answer) this.#heldBytes = answer.heldBytes;
        return answer as Answer;
      },
    });
  }

  add(cut: WorkedCut, k: number): void {
    this.#packer.add(cut, k);
  }

  endBatch(): void {
    if (this.#packer.rows === 0) return;
    const batch = this.#packer.take();
    const counted = this.#thread.ask(
      { kind: 'rows', batch, othersBytes: measuredMemory() + this.#othersBytes() },
      undefined,
      [batch.facts.buffer as ArrayBuffer, batch.labels.buffer as ArrayBuffer],
    );
    // Its failure surfaces where the batch is awaited (caughtUp, finish), not as an unhandled rejection.
    counted.catch(() => {});
    this.#waiting.push(counted);
  }

  async caughtUp(): Promise<void> {
    while (this.#waiting.length > MAX_WAITING) await this.#waiting.shift();
  }

  async finish(): Promise<ExportSummaries> {
    this.endBatch();
    for (let batch = this.#waiting.shift(); batch !== undefined; batch = this.#waiting.shift()) await batch;
    const answer = await this.#thread.ask({ kind: 'finish' }, undefined);
    if (!('summaries' in answer))
      throw new RenderThreadFailedError('the statistics thread sent no summaries');
    // It has closed its files: its memory is free for the writers from now on.
    this.#closed ??= this.#thread.close();
    await this.#closed;
    this.#heldBytes = 0;
    const { shops, users, ...rest } = answer.summaries;
    return {
      ...rest,
      shops: this.#table(shops, (runs, length) => readSpilledTable(SHOP_LEVEL, runs, length)),
      users: this.#table(users, (runs, length) => readSpilledTable(USER_LEVEL, runs, length)),
    };
  }

  /** What the thread held at its last answer, in bytes: the export's gauge adds it. */
  heldBytes(): number {
    return this.#heldBytes;
  }

  /** Ends the thread, if finish() has not: it removes its files first. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.#thread.ask({ kind: 'dispose' }, undefined).catch(() => {});
      await this.#thread.close();
      this.#heldBytes = 0;
    })();
    return this.#closed;
  }

  /** A table as it came across: its rows, or read from the spilled runs' file, opened here. */
  #table<S>(
    table: TableAcross<S>,
    read: (runs: ReadableRuns, length: number) => SummaryRows<S>,
  ): SummaryRows<S> {
    if ('rows' in table) return table.rows;
    const temp = this.#temp;
    if (temp === undefined)
      throw new RenderThreadFailedError('the statistics thread spilled without a budget');
    const { path, bytes, runs, length } = table.spilled;
    const file = temp.open(path, bytes);
    return read(new FileRuns(file, runs), length);
  }
}

/** The thread's error as the export's thread throws it: a spill keeps its code, anything else is the thread's. */
function threadError(message: string, code: string | undefined): Error {
  if (code === 'GROUP_SPILL_FAILED') return new GroupSpillError(message, undefined);
  return new RenderThreadFailedError(`the statistics thread failed: ${message}`);
}
