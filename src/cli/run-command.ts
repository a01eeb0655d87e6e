// `shift-export run`: one export of a period, in this process, no Redis needed; or, with --export,
// the run of an export definition that its schedule would make on a local date.

import { loadExportConfig } from '../config/export-config.js';
import { loadNotifyConfig } from '../config/notify-config.js';
import { loadS3Config } from '../config/s3-config.js';
import { loadSmtpConfig } from '../config/smtp-config.js';
import { assertSmtpForEmail } from '../notify/smtp-required.js';
import { loadWfmConfig, requireUpstream } from '../config/wfm-config.js';
import { parsePeriod } from '../domain/period.js';
import { requestedFormats } from '../queue/export-request.js';
import { redactSecrets, secretValuesOf } from '../redact-secrets.js';
import { commandLogger } from './command-logger.js';
import {
  FORMAT_FLAG_HELP,
  FORMAT_USAGE,
  parseFlags,
  UsageError,
  writeLine,
  type Command,
} from './command.js';
import { signalOnInterrupt } from './signal-on-interrupt.js';
import { DEFINITION_FLAGS, definitionRun, refusePeriodFlags } from './definition-run.js';
import { PERIOD_FLAGS } from './export-request-flags.js';
import { exportScopeOf } from '../definitions/definition-exports.js';
import type { Period } from '../domain/period.js';
import type { CliIo } from './command.js';
import { describeError } from '../errors.js';

export const runCommand: Command = {
  name: 'run',
  summary: 'export one period (or run an export definition) now, in this process (no Redis needed)',
  help: `
Usage: shift-export run --from YYYY-MM-DD --to YYYY-MM-DD [--dest DIR|s3://bucket/prefix] ${FORMAT_USAGE}
       shift-export run --export NAME [--date YYYY-MM-DD]

Exports the shifts whose local business date (the local date of the start) lies in from..to,
both inclusive, and publishes the files and manifest.json to <dest>/<from>_<to>/.

With --export, runs the export definition NAME (EXPORTS_FILE; without it, "nightly") as its
schedule would on the local date --date (default: today in the definition's time zone): each
period of that run (its period rule; for yesterday, also the look-back days) in its formats, to
its dest (default EXPORT_DEST/NAME; "nightly" without EXPORTS_FILE: EXPORT_DEST), filtered and
split as it says. An unknown NAME exits 2 with the closest known one.

Flags:
  --from DATE     first business date (YYYY-MM-DD)
  --to DATE       last business date, inclusive (YYYY-MM-DD)
  --dest DEST     a folder or s3://bucket/prefix (default: EXPORT_DEST, else ./exports)
${FORMAT_FLAG_HELP}
  --export NAME   run the export definition NAME instead (no --from, --to, --dest, --format)
  --date DATE     with --export: the run's local date (YYYY-MM-DD; default: today in its zone)

Needs WFM_BASE_URL and WFM_TOKEN (or WFM_TOKEN_FILE). Exit code 0 on success, 2 for bad flags or
configuration, 1 when the export failed or was interrupted (SIGINT, SIGTERM).

On a terminal it shows a progress line and logs nothing unless LOG_LEVEL is set; with stderr not a
terminal (cron, CI) it logs JSON lines there at LOG_LEVEL (default info).

With NOTIFY_WEBHOOK_URL set, the end of the export (export.published or export.failed) is POSTed
to each URL: at most 3 attempts within 15 s after the export, never changing its exit code. With
--export, the definition's own webhooks (deliver.webhook) get the same events, naming the
definition; a definition with deliver.email needs SMTP_URL and SMTP_FROM (else exit 2 before the
run) and mails each period's files right after it published, with the same bounded attempts.

Examples:
  WFM_BASE_URL=https://wfm.example.com WFM_TOKEN_FILE=/run/secrets/wfm \\
    npx shift-export run --from 2026-11-01 --to 2026-11-07
  npx shift-export run --from 2026-11-20 --to 2026-11-20 --format csv --dest s3://reports/shifts
  EXPORTS_FILE=exports.yaml npx shift-export run --export division-weekly --date 2026-11-23
`,
  async run(argv, io) {
    const { values } = parseFlags('run', argv, { ...PERIOD_FLAGS, ...DEFINITION_FLAGS });
    if (values.export !== undefined) {
      refusePeriodFlags('run', values);
      return runDefinition(values.export, values.date, io);
    }
    if (values.date !== undefined) throw new UsageError('run: --date goes with --export NAME');
    if (values.from === undefined) throw new UsageError('run: --from is required (YYYY-MM-DD)');
    if (values.to === undefined) throw new UsageError('run: --to is required (YYYY-MM-DD)');
    const exportConfig = loadExportConfig(io.env);
    const period = parsePeriod(values.from, values.to, exportConfig.maxDays);
    // The request first, then the upstream: `--format pdf` is answered as such, set up or not.
    const formats = values.format === undefined ? undefined : requestedFormats(values.format, '--format');
    const wfm = requireUpstream(loadWfmConfig(io.env));
    const notifyConfig = loadNotifyConfig(io.env);
    // Loaded here, not at the top: --help and flag errors should not pay for the AWS SDK and exceljs.
    const [{ runCliExport }, { runNotifier }] = await Promise.all([
      import('./run-cli-export.js'),
      import('./run-notifications.js'),
    ]);
    const logger = commandLogger(io, 'run');
    const notifier = runNotifier({
      config: notifyConfig,
      period,
      dest: values.dest ?? exportConfig.dest,
      s3Config: () => loadS3Config(io.env),
      knownSecrets: secretValuesOf(io.env),
      logger,
      io,
    });
    const interrupt = signalOnInterrupt();
    try {
      let outcome;
      try {
        outcome = await runCliExport(
          { period, wfm, dest: values.dest, formats, logger },
          io,
          interrupt.signal,
        );
      } catch (error) {
        await notifier?.failed(error);
        throw error;
      }
      await notifier?.published(outcome);
      return 0;
    } finally {
      interrupt.dispose();
    }
  },
};

/**
 * `run --export NAME`: each export of the definition's run in turn, as `run` exports a period. A
 * failed period does not stop the others (the look-back days stand on their own); exit 1 when one
 * failed.
 */
async function runDefinition(name: string, date: string | undefined, io: CliIo): Promise<number> {
  const run = await definitionRun(name, date, io);
  const wfm = requireUpstream(loadWfmConfig(io.env));
  const notifyConfig = loadNotifyConfig(io.env);
  const smtp = loadSmtpConfig(io.env);
  const email = run.definition.deliver?.email;
  const webhooks = run.definition.deliver?.webhooks ?? [];
  // Before the first export: a definition that asks for e-mail needs SMTP_URL (exit 2, one line).
  assertSmtpForEmail(email === undefined ? [] : [run.definition.name], smtp);
  const [{ runCliExport }, { runNotifier }, { deliverRunMail }] = await Promise.all([
    import('./run-cli-export.js'),
    import('./run-notifications.js'),
    import('./run-mail.js'),
  ]);
  const scope = exportScopeOf(run.definition);
  const logger = commandLogger(io, 'run');
  const interrupt = signalOnInterrupt();
  let failed = 0;
  try {
    for (const [i, planned] of run.exports.entries()) {
      const dest = planned.dest ?? run.exportConfig.dest;
      writeLine(
        io.stderr,
        `export ${run.definition.name} (run of ${run.date}): ${periodText(planned.period)}, ${i + 1} of ${run.exports.length}, to ${dest}`,
      );
      const notifier = runNotifier({
        config: notifyConfig,
        period: planned.period,
        dest,
        s3Config: () => loadS3Config(io.env),
        knownSecrets: secretValuesOf(io.env),
        logger,
        io,
        definition: run.definition.name,
        webhooks,
      });
      try {
        const outcome = await runCliExport(
          {
            period: planned.period,
            wfm,
            dest,
            formats: planned.formats,
            logger,
            ...scope,
          },
          io,
          interrupt.signal,
        );
        await notifier?.published(outcome);
        // The period's e-mail right after it published; never changes the run's exit code.
        if (email !== undefined)
          await deliverRunMail(outcome, {
            definition: run.definition.name,
            email,
            smtp,
            notifyConfig,
            webhooks,
            dest,
            s3Config: () => loadS3Config(io.env),
            wfm,
            logger,
            io,
          });
      } catch (error) {
        await notifier?.failed(error);
        if (interrupt.signal.aborted) throw error;
        failed++;
        writeLine(
          io.stderr,
          `shift-export run: ${periodText(planned.period)}: ${redactSecrets(describeError(error), secretValuesOf(io.env))}`,
        );
      }
    }
  } finally {
    interrupt.dispose();
  }
  return failed === 0 ? 0 : 1;
}

function periodText(period: Period): string {
  return period.from === period.to ? period.from : `${period.from}..${period.to}`;
}
