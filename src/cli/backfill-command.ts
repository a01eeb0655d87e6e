// `shift-export backfill`: queue one export per day of a range under a BullMQ flow whose parent
// writes an index of the days' manifests. The queue library is loaded when the command runs.

import { commandLogger } from './command-logger.js';
import { MAX_BACKFILL_DAYS } from '../queue/export-request.js';
import { loadQueueConfig } from '../config/queue-config.js';
import { loadQueueTuning } from '../config/queue-tuning.js';
import { countText } from './count-text.js';
import { FORMAT_FLAG_HELP, FORMAT_USAGE, writeLine, type Command, REDIS_SETTINGS_HELP } from './command.js';
import { parseExportRequestFlags } from './export-request-flags.js';

interface IndexShape {
  readonly index_location?: unknown;
  readonly days?: readonly unknown[];
  readonly totals?: { readonly exported?: unknown; readonly rejected?: unknown };
}

const countOrUnknown = (value: unknown): string => (typeof value === 'number' ? countText(value) : '?');

/** The lines of a completed backfill, from its index; undefined for anything else. */
export function describeIndex(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const index = value as IndexShape;
  if (typeof index.index_location !== 'string' || !Array.isArray(index.days)) return undefined;
  return [
    `Backfill of ${countText(index.days.length)} days complete; index at ${index.index_location}`,
    `  shifts exported ${countOrUnknown(index.totals?.exported)}, rejected ${countOrUnknown(index.totals?.rejected)}`,
  ].join('\n');
}

export const backfillCommand: Command = {
  name: 'backfill',
  summary: 'queue one export per day of a range, with an index when all are done (needs Redis)',
  help: `
Usage: shift-export backfill --from YYYY-MM-DD --to YYYY-MM-DD ${FORMAT_USAGE} [--dest DEST]
                             [--force] [--wait]

Queues a BullMQ flow: one export job per day from..to (each published like any export, to
<dest>/<day>_<day>/), and a parent job that runs when every day completed and writes an index of
the days' manifests to <dest>/backfill-<from>_<to>.json. Days run in parallel on the workers. A day
that fails for good (after its retries) fails the backfill at once; asking again re-runs the
backfill (a completed one only with --force). Prints the backfill's job id on stdout.

Flags:
  --from DATE     first business date (YYYY-MM-DD)
  --to DATE       last business date, inclusive (at most ${MAX_BACKFILL_DAYS} days)
${FORMAT_FLAG_HELP}
  --dest DEST     a folder (as the worker sees it) or s3://bucket/prefix inside EXPORT_DEST or
                  EXPORT_DEST_ALLOW (default: the worker's EXPORT_DEST); the worker refuses
                  any other
  --force         run again even when this backfill already completed
  --wait          wait for the end; print where the index is, or the failure and exit 1

${REDIS_SETTINGS_HELP}

Exit code 0 when queued (with --wait: when every day and the index completed), 1 when it failed or
Redis cannot be reached, 2 for bad flags or configuration.

Examples:
  npx shift-export backfill --from 2026-01-01 --to 2026-03-31
  npx shift-export backfill --from 2026-11-01 --to 2026-11-07 --format csv --dest s3://reports/shifts --wait
`,
  async run(argv, io) {
    const { data, force, wait } = await parseExportRequestFlags('backfill', argv, io, { backfill: true });
    const queueConfig = loadQueueConfig(io.env);
    const tuning = loadQueueTuning(io.env);
    const [{ openProducer }, { enqueueBackfill }, { waitAndReport }] = await Promise.all([
      import('../queue/producer.js'),
      import('../queue/enqueue-export.js'),
      import('./wait-and-report.js'),
    ]);
    const producer = await openProducer({
      config: queueConfig,
      tuning,
      logger: commandLogger(io, 'queue'),
      oneShot: true,
    });
    try {
      const outcome = await enqueueBackfill(producer.queue, producer.flows(), data, queueConfig, {
        force: force,
      });
      writeLine(io.stdout, outcome.jobId);
      writeLine(
        io.stderr,
        outcome.created
          ? `queued ${outcome.days.length} days`
          : `already ${outcome.state}: returned the existing backfill${outcome.state === 'completed' ? ' (use --force to run it again)' : ''}`,
      );
      if (!wait) return 0;
      return await waitAndReport(producer, outcome.jobId, io, describeIndex, tuning.redisConnectTimeoutMs);
    } finally {
      await producer.close();
    }
  },
};
