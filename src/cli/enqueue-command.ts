// `shift-export enqueue`: put one export on the queue for a worker; print its job id. The queue
// library is loaded when the command runs, so `--help` and the other commands start fast.

import { commandLogger } from './command-logger.js';
import { loadQueueConfig } from '../config/queue-config.js';
import { loadQueueTuning } from '../config/queue-tuning.js';
import { FORMAT_FLAG_HELP, FORMAT_USAGE, writeLine, type Command, REDIS_SETTINGS_HELP } from './command.js';
import { parseExportRequestFlags } from './export-request-flags.js';

export const enqueueCommand: Command = {
  name: 'enqueue',
  summary: 'queue the export of one period for a worker and print its job id (needs Redis)',
  help: `
Usage: shift-export enqueue --from YYYY-MM-DD --to YYYY-MM-DD ${FORMAT_USAGE} [--dest DEST]
                            [--force] [--wait]

Queues the export of a period for a worker (\`shift-export worker\`) and prints the job id on
stdout. The id is derived from the period, the formats and the destination: asking again for an
export that is waiting or running returns the same job; one that completed is exported again only
with --force; one that failed is run again.

Flags:
  --from DATE     first business date (YYYY-MM-DD)
  --to DATE       last business date, inclusive (at most EXPORT_MAX_DAYS days)
${FORMAT_FLAG_HELP}
  --dest DEST     a folder (as the worker sees it) or s3://bucket/prefix inside EXPORT_DEST or
                  EXPORT_DEST_ALLOW (default: the worker's EXPORT_DEST); the worker refuses
                  any other
  --force         export again even when this export already completed
  --wait          show progress and wait for the end; print the export's counts, or the failure
                  reason and exit 1

${REDIS_SETTINGS_HELP}

Exit code 0 when queued (with --wait: when the export completed), 1 when it failed or Redis
cannot be reached, 2 for bad flags or configuration.

Examples:
  npx shift-export enqueue --from 2026-11-01 --to 2026-11-07
  npx shift-export enqueue --from 2026-11-20 --to 2026-11-20 --format csv --dest s3://reports/shifts --wait
  JOB=$(npx shift-export enqueue --from 2026-11-20 --to 2026-11-20 --force) && npx shift-export status "$JOB"
`,
  async run(argv, io) {
    const { data, force, wait } = await parseExportRequestFlags('enqueue', argv, io);
    const config = loadQueueConfig(io.env);
    const tuning = loadQueueTuning(io.env);
    const [{ openProducer }, { enqueueExport }, { waitAndReport }] = await Promise.all([
      import('../queue/producer.js'),
      import('../queue/enqueue-export.js'),
      import('./wait-and-report.js'),
    ]);
    const producer = await openProducer({
      config,
      tuning,
      logger: commandLogger(io, 'queue'),
      oneShot: true,
    });
    try {
      const outcome = await enqueueExport(producer.queue, data, { force: force });
      writeLine(io.stdout, outcome.jobId);
      if (!outcome.created)
        writeLine(
          io.stderr,
          `already ${outcome.state}: returned the existing job${outcome.state === 'completed' ? ' (use --force to export again)' : ''}`,
        );
      if (!wait) return 0;
      return await waitAndReport(producer, outcome.jobId, io, undefined, tuning.redisConnectTimeoutMs);
    } finally {
      await producer.close();
    }
  },
};
