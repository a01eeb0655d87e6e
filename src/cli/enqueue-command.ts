// `shift-export enqueue`: put one export on the queue for a worker; print its job id. With
// --export, the exports of an export definition's run (one job per period), as its schedule would
// queue them. The queue library is loaded when the command runs, so `--help` and the other
// commands start fast.

import { commandLogger } from './command-logger.js';
import { loadQueueConfig } from '../config/queue-config.js';
import { loadQueueTuning } from '../config/queue-tuning.js';
import {
  FORMAT_FLAG_HELP,
  FORMAT_USAGE,
  parseFlags,
  UsageError,
  writeLine,
  type Command,
  REDIS_SETTINGS_HELP,
} from './command.js';
import { exportRequestOf, PERIOD_FLAGS, QUEUE_FLAGS } from './export-request-flags.js';
import { DEFINITION_FLAGS, definitionRun, refusePeriodFlags } from './definition-run.js';
import { exportJobData, type ExportJobData } from '../queue/export-job-data.js';

export const enqueueCommand: Command = {
  name: 'enqueue',
  summary: 'queue the export of one period (or an export definition) and print its job id (needs Redis)',
  help: `
Usage: shift-export enqueue --from YYYY-MM-DD --to YYYY-MM-DD ${FORMAT_USAGE} [--dest DEST]
                            [--force] [--wait]
       shift-export enqueue --export NAME [--date YYYY-MM-DD] [--force] [--wait]

Queues the export of a period for a worker (\`shift-export worker\`) and prints the job id on
stdout. The id is derived from the period, the formats and the destination: asking again for an
export that is waiting or running returns the same job; one that completed is exported again only
with --force; one that failed is run again.

With --export, queues the run of the export definition NAME (EXPORTS_FILE; without it,
"nightly") that its schedule would make on the local date --date (default: today in its time
zone): one job per period of the run, named after the definition, and prints their ids, one a
line. The worker takes the definition's filter and split from its own EXPORTS_FILE.

Flags:
  --from DATE     first business date (YYYY-MM-DD)
  --to DATE       last business date, inclusive (at most EXPORT_MAX_DAYS days)
${FORMAT_FLAG_HELP}
  --dest DEST     a folder (as the worker sees it) or s3://bucket/prefix inside EXPORT_DEST or
                  EXPORT_DEST_ALLOW (default: the worker's EXPORT_DEST); the worker refuses
                  any other
  --export NAME   queue the run of the export definition NAME (no --from, --to, --format, --dest)
  --date DATE     with --export: the run's local date (YYYY-MM-DD; default: today in its zone)
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
  EXPORTS_FILE=exports.yaml npx shift-export enqueue --export monthly --date 2026-12-01 --wait
`,
  async run(argv, io) {
    const { jobs, force, wait } = await requestedJobs(argv, io);
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
      const ids: string[] = [];
      for (const data of jobs) {
        const outcome = await enqueueExport(producer.queue, data, { force: force });
        writeLine(io.stdout, outcome.jobId);
        ids.push(outcome.jobId);
        if (!outcome.created)
          writeLine(
            io.stderr,
            `${jobs.length > 1 ? `${data.from}..${data.to}: ` : ''}already ${outcome.state}: returned the existing job${outcome.state === 'completed' ? ' (use --force to export again)' : ''}`,
          );
      }
      if (!wait) return 0;
      let code = 0;
      for (const id of ids)
        code = Math.max(code, await waitAndReport(producer, id, io, undefined, tuning.redisConnectTimeoutMs));
      return code;
    } finally {
      await producer.close();
    }
  },
};

/** The job data asked for: one export (the flags of a period), or the exports of a definition's run. */
async function requestedJobs(
  argv: readonly string[],
  io: Parameters<Command['run']>[1],
): Promise<{ jobs: readonly ExportJobData[]; force: boolean; wait: boolean }> {
  const { values } = parseFlags('enqueue', argv, { ...PERIOD_FLAGS, ...QUEUE_FLAGS, ...DEFINITION_FLAGS });
  if (values.export === undefined) {
    if (values.date !== undefined) throw new UsageError('enqueue: --date goes with --export NAME');
    const { data, force, wait } = await exportRequestOf('enqueue', values, io);
    return { jobs: [data], force, wait };
  }
  refusePeriodFlags('enqueue', values);
  const run = await definitionRun(values.export, values.date, io);
  const jobs = run.exports.map((planned) =>
    exportJobData(planned.period.from, planned.period.to, planned.formats, planned.dest, planned.definition),
  );
  return { jobs, force: values.force === true, wait: values.wait === true };
}
