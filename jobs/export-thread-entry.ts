// The body of an export thread (started by export-thread.ts): one ConfiguredExport, as `shift-export
// run` runs it, with its progress, log lines and outcome posted to the main thread, which owns
// the job, the logger's sink and the metrics. It never throws: whatever happens becomes a
// `completed` or `failed` message, and a thread that ends without one has crashed.

import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { destinationRoots } from '../src/destinations/allowed-destination.js';
import { parsePeriod } from '../src/domain/period.js';
import { describeError, isShiftExportError } from '../src/errors.js';
import { ConfiguredExport } from '../src/export/configured-export.js';
import { createLogger } from '../src/logger.js';
import { exportJobResult, type ExportJobResult } from '../src/queue/export-job-result.js';
import type { ExportOutcome } from '../src/queue/export-metrics.js';
import type {
  ExportThreadFailure,
  ExportThreadInput,
  FromExportThread,
  ToExportThread,
} from './export-thread-messages.js';

const port = parentPort;
if (port === null) throw new Error('export-thread-entry runs only as a worker thread');
const input = workerData as ExportThreadInput;
const post = (message: FromExportThread): void => port.postMessage(message);

const abort = new AbortController();
port.on('message', (message: ToExportThread) => {
  if (message.type === 'abort') abort.abort(message.reason);
});

// pino writes each line whole; the main thread logs it again under the job's logger.
const lines = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    for (const line of chunk.toString('utf8').split('\n')) if (line !== '') post({ type: 'log', line });
    callback();
  },
});
const logger = createLogger({ level: input.logLevel, destination: lines });

let upstreamRetries = 0;
let configuredExport: ConfiguredExport | undefined;
let outcome: ExportOutcome;
let settled:
  { type: 'completed'; summary: ExportJobResult } | { type: 'failed'; failure: ExportThreadFailure };
try {
  const period = parsePeriod(input.from, input.to, input.exportConfig.maxDays);
  configuredExport = await ConfiguredExport.open({
    dest: input.dest,
    roots: destinationRoots(input.exportConfig),
    exportConfig: input.exportConfig,
    wfm: input.wfm,
    s3Config: () => {
      if (input.s3 === undefined) throw new Error('the main thread gave no S3 settings');
      return input.s3;
    },
    logger,
    onUpstreamRetry: () => void upstreamRetries++,
  });
  const result = await configuredExport.run(
    {
      period,
      formats: input.formats,
      ...(input.filter === undefined ? {} : { filter: input.filter }),
      ...(input.split === undefined ? {} : { split: input.split }),
      ...(input.lang === undefined ? {} : { lang: input.lang }),
      ...(input.readers === undefined ? {} : { readers: input.readers }),
    },
    { onProgress: (progress) => post({ type: 'progress', progress }), signal: abort.signal },
  );
  outcome = {
    status: 'completed',
    upstreamRetries,
    durationMs: result.durationMs,
    counts: result.manifest.counts,
  };
  settled = { type: 'completed', summary: exportJobResult(result) };
} catch (error) {
  outcome = { status: 'failed', upstreamRetries };
  const terminal = isShiftExportError(error) && !error.retryable;
  const known = isShiftExportError(error) ? { code: error.code, message: error.message } : undefined;
  settled = {
    type: 'failed',
    failure: { line: describeError(error), terminal, ...(known === undefined ? {} : { error: known }) },
  };
}
if (configuredExport !== undefined) {
  const { wireBytes, decodedBytes } = configuredExport.upstreamTraffic;
  outcome = { ...outcome, upstreamBytes: { wire: wireBytes, decoded: decodedBytes } };
  await configuredExport.close().catch(() => undefined);
}
post({ ...settled, outcome });
port.close();
