// `shift-export demo` (what `npm start` runs): the first-run experience. Starts the sandbox in
// this process on a free port, exports its most recent week to ./exports (or --dest) and prints
// where the files are. Needs no configuration at all.

import { loadWfmConfig } from '../config/wfm-config.js';
import { formatDay, parseDay } from 'wfm-contract/civil-time';
import { requestedFormats } from '../queue/export-request.js';
import { commandLogger } from './command-logger.js';
import { countText } from './count-text.js';
import { FORMAT_FLAG_HELP, FORMAT_USAGE, parseFlags, UsageError, type Command } from './command.js';
import { signalOnInterrupt } from './signal-on-interrupt.js';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'start the sandbox, export its most recent week to ./exports (what `npm start` does)',
  help: `
Usage: shift-export demo [--rows N] [--seed S] [--dest DIR] ${FORMAT_USAGE}

Starts the sandbox WFM server in this process on a free port with generated data (0.2% of the
rows invalid and 0.1% sent twice, as real reports have), exports the last 7 business dates it
has, prints where the files are and a few headline numbers, and stops. It logs nothing unless
LOG_LEVEL is set (LOG_LEVEL=info: the export's JSON log lines on stderr).

Exit code 0 once the files are published, 1 when the export failed or was interrupted, 2 for bad
flags or configuration.

Flags:
  --rows N        shifts the sandbox generates (default 20000)
  --seed S        seed of the generated data (default 1)
  --dest DIR      where to write (default: EXPORT_DEST, else ./exports)
${FORMAT_FLAG_HELP}

Examples:
  npm start
  npx shift-export demo --rows 100000 --format csv
`,
  async run(argv, io) {
    const { values } = parseFlags('demo', argv, {
      rows: { type: 'string' },
      seed: { type: 'string' },
      dest: { type: 'string' },
      format: { type: 'string' },
    });
    const rows = positiveInt(values.rows ?? '20000', '--rows');
    const seed = positiveInt(values.seed ?? '1', '--seed');
    const formats = values.format === undefined ? undefined : requestedFormats(values.format, '--format');
    const { startSandbox, SANDBOX_ADMIN_TOKEN } = await import('wfm-sandbox');
    const { runCliExport } = await import('./run-cli-export.js');
    // A few invalid and repeated rows, as real reports have: rejected.csv and the counts show them.
    const sandbox = await startSandbox({
      port: 0,
      rows,
      seed,
      faults: { wfm_timers: { invalidRowRate: 0.002, duplicateRowRate: 0.001 } },
    });
    const interrupt = signalOnInterrupt();
    try {
      const last = parseDay(sandbox.dataset.lastDate);
      if (last === undefined)
        throw new Error(`the sandbox reported an invalid last date ${sandbox.dataset.lastDate}`);
      const period = { from: formatDay(last - 6), to: sandbox.dataset.lastDate };
      io.stdout.write(
        `Sandbox WFM API on ${sandbox.url} with ${countText(rows)} shifts; exporting ${period.from}..${period.to}\n`,
      );
      // The demo's upstream is the sandbox, whatever WFM_* says, but the other WFM_* settings apply.
      const wfm = {
        ...loadWfmConfig({ ...io.env, WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_ADMIN_TOKEN }),
        baseUrl: sandbox.url,
        token: SANDBOX_ADMIN_TOKEN,
      };
      await runCliExport(
        { period, wfm, dest: values.dest, formats, logger: commandLogger(io, 'demo') },
        io,
        interrupt.signal,
      );
      return 0;
    } finally {
      interrupt.dispose();
      await sandbox.close();
    }
  },
};

function positiveInt(text: string, flag: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new UsageError(`demo: ${flag} must be a positive whole number (got "${text}")`);
  return Number(text);
}
