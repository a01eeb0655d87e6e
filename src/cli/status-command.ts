// `shift-export status [JOB_ID]`: the recent jobs of the queue, or one job in detail. The queue
// library is loaded when the command runs.

import type { JobType } from 'bullmq';
import { loadQueueConfig } from '../config/queue-config.js';
import { commandLogger } from './command-logger.js';
import { formatJobDetails, formatJobTable, mailDeliveryText } from './job-text.js';
import { loadQueueTuning } from '../config/queue-tuning.js';
import { parseFlags, UsageError, writeLine, type Command, REDIS_SETTINGS_HELP } from './command.js';

const STATES: readonly JobType[] = [
  'active',
  'waiting',
  'prioritized',
  'delayed',
  'waiting-children',
  'completed',
  'failed',
];

export const statusCommand: Command = {
  name: 'status',
  summary: 'list recent queue jobs, or show one (needs Redis)',
  help: `
Usage: shift-export status [JOB_ID] [--limit N] [--state STATE] [--json]

Without a job id, lists the most recent jobs of the queue, newest first: id, state, period,
progress (or rows exported) and when it finished. With a job id, shows that job: state, period,
attempts, progress, the failure reason, and the export's counts and files once it completed, with
what became of its e-mail (deliver.email): sent, retrying, or FAILED (export.delivery_failed).

Flags:
  --limit N       jobs to list (default 20, at most 1000)
  --state STATE   only jobs in this state: active, waiting, prioritized, delayed,
                  waiting-children, completed or failed
  --json          print JSON instead of text

${REDIS_SETTINGS_HELP}

Exit code 0; 1 when the job does not exist or Redis cannot be reached; 2 for bad flags or
configuration.

Examples:
  npx shift-export status
  npx shift-export status --state failed --limit 5
  npx shift-export status export-2026-11-01_2026-11-07-csv+xlsx-3f9a1c0b2e --json
`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(
      'status',
      argv,
      { limit: { type: 'string' }, state: { type: 'string' }, json: { type: 'boolean' } },
      true,
    );
    if (positionals.length > 1)
      throw new UsageError('status: give at most one job id (see shift-export status --help)');
    const limit = values.limit === undefined ? 20 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new UsageError(`status: --limit "${values.limit}" is not a number from 1 to 1000`);
    const state = values.state;
    if (state !== undefined && !(STATES as readonly string[]).includes(state)) {
      throw new UsageError(`status: --state "${state}" is not one of ${STATES.join(', ')}`);
    }
    const config = loadQueueConfig(io.env);
    const tuning = loadQueueTuning(io.env);
    const [{ openProducer }, { jobView, loadJobView }, { readMailDeliveryRecord }] = await Promise.all([
      import('../queue/producer.js'),
      import('../queue/job-view.js'),
      import('../queue/mail-delivery-record.js'),
    ]);
    const producer = await openProducer({
      config,
      tuning,
      logger: commandLogger(io, 'queue'),
      oneShot: true,
    });
    try {
      const id = positionals[0];
      if (id !== undefined) {
        const view = await loadJobView(producer.queue, id);
        if (view === undefined) {
          writeLine(
            io.stderr,
            `shift-export status: no job ${id} in the queue (finished jobs are kept 30 days)`,
          );
          return 1;
        }
        // The e-mail of the export (deliver.email), when it had one.
        const mail =
          view.result === null
            ? undefined
            : await readMailDeliveryRecord(producer.connection, config.prefix, view.result.export_id);
        if (values.json === true)
          writeLine(
            io.stdout,
            JSON.stringify(mail === undefined ? view : { ...view, mail_delivery: mail }, null, 2),
          );
        else
          writeLine(
            io.stdout,
            mail === undefined
              ? formatJobDetails(view)
              : `${formatJobDetails(view)}\n${mailDeliveryText(mail)}`,
          );
        return 0;
      }
      const types = state === undefined ? STATES : [state as JobType];
      // getJobs pages each state separately; take `limit` of each, then the newest overall.
      const jobs = (await producer.queue.getJobs([...types], 0, limit - 1)).filter((j) => j !== undefined);
      jobs.sort((a, b) => b.timestamp - a.timestamp);
      const views = await Promise.all(jobs.slice(0, limit).map(async (j) => jobView(j, await j.getState())));
      writeLine(io.stdout, values.json === true ? JSON.stringify(views, null, 2) : formatJobTable(views));
      return 0;
    } finally {
      await producer.close();
    }
  },
};
