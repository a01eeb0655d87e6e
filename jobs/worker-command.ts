// `shift-export worker`: a BullMQ worker process (worker.ts) until SIGTERM or SIGINT. The worker
// and its libraries are loaded when the command runs, so `--help` and the other commands start
// fast. It lives beside the worker because src/ never imports jobs/: the entry point
// (bin/shift-export.js) hands it to the CLI's command table.

import { loadExportConfig } from '../src/config/export-config.js';
import { loadLogLevel } from '../src/config/log-level.js';
import { loadNotifyConfig } from '../src/config/notify-config.js';
import { loadQueueConfig } from '../src/config/queue-config.js';
import { loadS3Config } from '../src/config/s3-config.js';
import { loadSmtpConfig } from '../src/config/smtp-config.js';
import { loadScheduleConfig } from '../src/config/schedule-config.js';
import { loadWfmConfig, requireUpstream } from '../src/config/wfm-config.js';
import { createLogger } from '../src/logger.js';
import { secretValuesOf } from '../src/redact-secrets.js';
import { loadQueueTuning } from '../src/config/queue-tuning.js';
import { parseFlags, type Command } from '../src/cli/command.js';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run a queue worker: on-demand, nightly and backfill exports (needs Redis)',
  help: `
Usage: shift-export worker

Runs a BullMQ worker on the queue "shift-exports" in Redis (REDIS_URL, or REDIS_CLUSTER_NODES, or
REDIS_SENTINELS with REDIS_SENTINEL_NAME): it takes export jobs (from
\`enqueue\`, \`backfill\`, the control API and the nightly schedule) and writes each export to the
job's destination or EXPORT_DEST. A job whose destination lies outside EXPORT_DEST and
EXPORT_DEST_ALLOW (real paths compared) fails at once with DEST_NOT_ALLOWED, whoever queued it. At start it registers the nightly schedule (NIGHTLY_CRON in
NIGHTLY_TZ: yesterday plus LOOKBACK_DAYS days before it, each re-exported every night).

Run as many workers as you like, on as many machines, against the same Redis: each takes
WORKER_CONCURRENCY jobs at a time, each export on a thread of its own (so up to that many cores),
its workbook rendered on EXPORT_THREADS threads (default: the CPUs over WORKER_CONCURRENCY);
a job runs on one worker at a time.

On SIGTERM or SIGINT the worker takes no new job, lets running exports finish within
SHUTDOWN_GRACE_MS, then aborts them (nothing is published) and hands them back to the queue for
another worker; a second signal skips the wait. Exit code 0 once stopped; 2 for bad configuration.

With NOTIFY_WEBHOOK_URL set it also delivers webhooks (export.published, export.failed,
backfill.completed) from the queue "shift-export-notifications", retried NOTIFY_ATTEMPTS times.
With SMTP_URL and SMTP_FROM set it sends the e-mail of definitions with deliver.email from the
same queue, after the export is published; a mail that finally fails raises
export.delivery_failed.

Needs WFM_BASE_URL and WFM_TOKEN (or WFM_TOKEN_FILE); logs JSON lines to stderr (LOG_LEVEL).

Examples:
  REDIS_URL=redis://redis:6379 WFM_BASE_URL=https://wfm.example.com WFM_TOKEN_FILE=/run/secrets/wfm \\
    EXPORT_DEST=s3://reports/shifts npx shift-export worker
  WORKER_CONCURRENCY=2 NIGHTLY_TZ=Europe/Berlin npx shift-export worker
`,
  async run(argv, io) {
    parseFlags('worker', argv, {});
    const queueConfig = loadQueueConfig(io.env);
    const tuning = loadQueueTuning(io.env);
    const schedule = loadScheduleConfig(io.env);
    // Concurrent exports share the CPUs: each gets its part as render threads (EXPORT_THREADS).
    const exportConfig = loadExportConfig(io.env, queueConfig.concurrency);
    const wfm = requireUpstream(loadWfmConfig(io.env));
    const notify = loadNotifyConfig(io.env);
    const smtp = loadSmtpConfig(io.env);
    const logger = createLogger({
      level: loadLogLevel(io.env),
      destination: io.stderr,
      name: 'shift-export-worker',
    });
    const [{ connectRedis }, { startExportWorker }] = await Promise.all([
      import('../src/queue/redis-connection.js'),
      import('./worker.js'),
    ]);
    const connection = await connectRedis(queueConfig.redis, {
      role: 'worker',
      connectTimeoutMs: tuning.redisConnectTimeoutMs,
      logger,
      connectionName: 'shift-export-worker',
    });
    const running = await startExportWorker({
      connection,
      queueConfig,
      tuning,
      schedule,
      exportConfig,
      wfm,
      s3Config: () => loadS3Config(io.env),
      logger,
      notify: { config: notify, knownSecrets: secretValuesOf(io.env), smtp },
    });
    const stopped = new Promise<boolean>((resolve) => {
      const onSignal = (signal: NodeJS.Signals): void =>
        void running.stop(`received ${signal}`).then(resolve);
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    });
    const inTime = await stopped;
    // Whatever a library may still hold open (a keep-alive socket, a timer) must not keep a stopped
    // worker alive: an orchestrator waiting for the exit would kill it and lose the clean stop.
    setTimeout(() => process.exit(process.exitCode ?? 0), 3000).unref();
    return inTime ? 0 : 1;
  },
};
