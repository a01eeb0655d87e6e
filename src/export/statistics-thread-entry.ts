// The body of the statistics thread (statistics-thread.ts starts it): counts the batches of
// exported rows it is sent, in the order sent, with the export's aggregate (aggregate.ts), and
// answers each with what it holds; at the end, it sends the summaries, a spilled user or shop table
// as the file of its sorted runs, which it closes and leaves to the export's thread (which ends this
// thread then); told to dispose before that (the export failed), it removes its files. A batch
// that cannot be counted is answered with its error (a spill that failed keeps its code); anything
// else that breaks ends the thread, which the export reports as EXPORT_THREAD_FAILED.

import { parentPort, workerData } from 'node:worker_threads';
import type { SummaryRows } from '../domain/summary.js';
import { ShiftAggregator } from '../pipeline/aggregate.js';
import { measuredMemory, type GroupMemory } from '../pipeline/group-memory.js';
import { spilledTableOf } from '../pipeline/summary-sorter.js';
import { ShiftExportError } from '../errors.js';
import { TempFolder } from '../temp-file.js';
import type { NumberedRequest } from './answering-thread.js';
import { addBatch, emptyAggregateShift } from './shift-statistics.js';
import type {
  FromStatisticsThread,
  StatisticsThreadSetup,
  SummariesAcross,
  TableAcross,
  ToStatisticsThread,
} from './statistics-thread.js';

const port = parentPort;
if (port === null) throw new Error('statistics-thread-entry runs only as a worker thread');
const setup = workerData as StatisticsThreadSetup;
const temp = setup.memory === undefined ? undefined : new TempFolder(setup.memory.folder);
/** What the export's other threads held at the last batch: the budget counts it beside this thread. */
let othersBytes = 0;
const memory: GroupMemory | undefined =
  setup.memory === undefined || temp === undefined
    ? undefined
    : {
        budgetBytes: setup.memory.budgetBytes,
        temp,
        gauge: { measure: () => measuredMemory() + othersBytes, every: setup.memory.every },
      };
const aggregator = new ShiftAggregator(setup.divisions, memory);
const row = emptyAggregateShift();

port.on('message', ({ seq, request }: NumberedRequest<ToStatisticsThread>) => {
  let answer: FromStatisticsThread;
  try {
    if (request.kind === 'rows') {
      othersBytes = request.othersBytes;
      addBatch(aggregator, row, request.batch);
      answer = { seq, counted: request.batch.rows, heldBytes: measuredMemory() };
    } else if (request.kind === 'finish') {
      answer = { seq, summaries: across(aggregator.finish()) };
      // The export's thread reads the spilled tables from here on, and removes the files.
      temp?.close();
    } else {
      temp?.dispose();
      answer = { seq, disposed: true };
    }
  } catch (error) {
    answer = {
      seq,
      error: error instanceof Error ? error.message : String(error),
      ...(error instanceof ShiftExportError ? { code: error.code } : {}),
    };
  }
  port.postMessage(answer);
});

function across({ shops, users, ...rest }: ReturnType<ShiftAggregator['finish']>): SummariesAcross {
  return { ...rest, shops: tableAcross(shops), users: tableAcross(users) };
}

function tableAcross<S>(rows: SummaryRows<S>): TableAcross<S> {
  const spilled = spilledTableOf(rows);
  if (spilled !== undefined) return { spilled };
  return { rows: Array.isArray(rows) ? (rows as readonly S[]) : [...rows] };
}
