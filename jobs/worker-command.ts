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
import { parseFlags, writeLine, type Command } from '../src/cli/command.js';
import { formatProblem } from '../src/definitions/definition-problem.js';
import { loadExportDefinitions } from '../src/definitions/load-export-definitions.js';
import { definitionsWithEmail } from '../src/definitions/export-definition.js';
import { assertSmtpForEmail } from '../src/notify/smtp-required.js';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run a queue worker: on-demand, scheduled and backfill exports (needs Redis)',
  help: `
Usage: shift-export worker

Runs a BullMQ worker on the queue "shift-exports" in Redis (REDIS_URL, or REDIS_CLUSTER_NODES, or
REDIS_SENTINELS with REDIS_SENTINEL_NAME): it takes export jobs (from
\`enqueue\`, \`backfill\`, the control API and the nightly schedule) and writes each export to the
job's destination or EXPORT_DEST. A job whose destination lies outside EXPORT_DEST and
EXPORT_DEST_ALLOW (real paths compared) fails at once with DEST_NOT_ALLOWED, whoever queued it.

At start it loads the export definitions (EXPORTS_FILE; without it the one definition "nightly":
NIGHTLY_CRON in NIGHTLY_TZ, yesterday plus LOOKBACK_DAYS days before it, into EXPORT_DEST) and
keeps one BullMQ Job Scheduler per scheduled definition, id export:NAME, with its cron and time
zone; it removes the export:* schedulers of definitions not in the file (and the scheduler
nightly-export of versions before definitions). A file with problems stops it with exit code 2 and
one line per problem (as \`shift-export exports check\` prints them). On SIGHUP it reads the file
again and reconciles the schedulers without a restart; a file that fails to load then keeps the
schedules in force and logs one error line. The schedulers in Redis are those of the worker that
started or reloaded last: give every worker the same EXPORTS_FILE.

Run as many workers as you like, on as many machines, against the same Redis: each takes
WORKER_CONCURRENCY jobs at a time, each export on a thread of its own (so up to that many cores),
its rows worked on EXPORT_THREADS export threads (default: the CPUs over WORKER_CONCURRENCY);
a job runs on one worker at a time.

On SIGTERM or SIGINT the worker takes no new job, lets running exports finish within
SHUTDOWN_GRACE_MS, then aborts them (nothing is published) and hands them back to the queue for
another worker; a second signal skips the wait. Every step of the stop is bounded and logged
("stop step <name>: done" or "... cut short"), so it stops even while Redis is down or failing
over. Exit code 0 once stopped with every running export finished or handed back; 1 when one
could be neither (its lock expires and another worker takes it) or Redis cannot be reached at
start; 2 for bad flags or configuration.

With NOTIFY_WEBHOOK_URL set it also delivers webhooks (export.published, export.failed,
backfill.completed) from the queue "shift-export-notifications", retried NOTIFY_ATTEMPTS times.
With SMTP_URL and SMTP_FROM set it sends the e-mail of definitions with deliver.email from the
same queue, after the export is published; a mail that finally fails raises
export.delivery_failed. A file with a definition that asks for e-mail (deliver.email) needs
SMTP_URL: without it the worker does not start (exit 2, one line), and a SIGHUP that brings such
a file keeps the definitions in force and logs one error line. A definition's own webhooks
(deliver.webhook) get its events (export.published, export.failed, export.delivery_failed, each
naming the definition) as NOTIFY_WEBHOOK_URL does, with the same retries.

Needs WFM_BASE_URL and WFM_TOKEN (or WFM_TOKEN_FILE); logs JSON lines to stderr (LOG_LEVEL).

Examples:
  REDIS_URL=redis://redis:6379 WFM_BASE_URL=https://wfm.example.com WFM_TOKEN_FILE=/run/secrets/wfm \\
    EXPORT_DEST=s3://reports/shifts npx shift-export worker
  WORKER_CONCURRENCY=2 NIGHTLY_TZ=Europe/Berlin npx shift-export worker
  EXPORTS_FILE=/etc/shift-export/exports.yaml npx shift-export worker   # then: kill -HUP <pid>
`,
  async run(argv, io) {
    parseFlags('worker', argv, {});
    const queueConfig = loadQueueConfig(io.env);
    const tuning = loadQueueTuning(io.env);
    const schedule = loadScheduleConfig(io.env);
    // Concurrent exports share the CPUs: each gets its part as export threads (EXPORT_THREADS).
    const exportConfig = loadExportConfig(io.env, queueConfig.concurrency);
    const wfm = requireUpstream(loadWfmConfig(io.env));
    const notify = loadNotifyConfig(io.env);
    // Before Redis: a file the worker cannot run is told at once, one line per problem.
    const loadDefinitions = () => loadExportDefinitions({ schedule, exportConfig });
    const loaded = await loadDefinitions();
    if (!loaded.ok) {
      for (const problem of loaded.problems) writeLine(io.stderr, formatProblem(problem));
      return 2;
    }
    const smtp = loadSmtpConfig(io.env);
    // A definition that asks for e-mail on a worker that cannot send it: one line, exit 2.
    assertSmtpForEmail(definitionsWithEmail(loaded.definitions), smtp);
    const logger = createLogger({
      level: loadLogLevel(io.env),
      destination: io.stderr,
      name: 'shift-export-worker',
    });
    const [{ connectRedis }, { startExportWorker }] = await Promise.all([
      import('../src/queue/redis-connection.js'),
      import('./worker.js'),
    ]);
    // From here on SIGHUP means "read EXPORTS_FILE again", never Node's default (exit): one that
    // arrives while the worker starts is answered once it has.
    const hangup: { reload?: () => Promise<boolean>; asked: boolean } = { asked: false };
    process.on('SIGHUP', () => {
      if (hangup.reload === undefined) hangup.asked = true;
      else void hangup.reload();
    });
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
      definitions: { initial: loaded.definitions, load: loadDefinitions },
      exportConfig,
      wfm,
      s3Config: () => loadS3Config(io.env),
      logger,
      notify: { config: notify, knownSecrets: secretValuesOf(io.env), smtp },
    });
    hangup.reload = () => running.reloadDefinitions();
    if (hangup.asked) void hangup.reload();
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
