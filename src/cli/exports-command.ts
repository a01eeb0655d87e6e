// `shift-export exports check`: loads the export definitions (EXPORTS_FILE, or the legacy nightly
// one) as the worker will, and prints each with its period rule, next runs and language; a bad file
// prints one `FILE:LINE:COLUMN: exports[i].field: what is wrong` line per problem and exits 2. For
// a definition that mails division managers it also counts the languages they read, when the
// upstream is configured (definition-readers.ts); without one, or when it cannot be read, it says
// so in a line and the file alone decides the exit code, so it runs in CI against the file about
// to be deployed. It reads no Redis.

import { loadExportConfig } from '../config/export-config.js';
import { loadScheduleConfig } from '../config/schedule-config.js';
import { formatProblem } from '../definitions/definition-problem.js';
import { loadExportDefinitions } from '../definitions/load-export-definitions.js';
import { parseFlags, UsageError, writeLine, type Command } from './command.js';
import { definitionReaders } from './definition-readers.js';
import { formatDefinitions, NEXT_RUN_COUNT } from './definition-text.js';
import { closestName } from './closest-name.js';
import { oneLine } from '../one-line.js';

const SUBCOMMANDS = ['check'] as const;

/** An ISO 8601 date-time with a zone: what --at takes. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

function parseAt(text: string | undefined): number {
  if (text === undefined) return Date.now();
  const ms = INSTANT.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new UsageError(
      `exports check: --at ${JSON.stringify(text)} is not a date-time with a zone (e.g. 2026-03-28T12:00:00Z or 2026-03-28T13:00:00+01:00)`,
    );
  }
  return ms;
}

export const exportsCommand: Command = {
  name: 'exports',
  summary: 'check the export definitions (EXPORTS_FILE): periods, next runs and languages',
  help: `
Usage: shift-export exports check [--at DATETIME]

Loads the export definitions as the worker does (EXPORTS_FILE; without it, the one definition
"nightly" made of NIGHTLY_*, LOOKBACK_DAYS, EXPORT_FORMATS and EXPORT_DEST) and prints each: its
period rule, its schedule and next ${NEXT_RUN_COUNT} runs on the wall clock of its time zone with the dates
each run exports (an on-demand definition: what a run now would export), its formats, language,
dest, filter, split and delivery. It reads no Redis.

For each definition that mails division managers (deliver.email.to: division-managers), when the
upstream is configured (WFM_BASE_URL and WFM_TOKEN or WFM_TOKEN_FILE), it reads the divisions with
their managers (only those of the definition's filter when it names divisions) and shows how many
managers get mail, how many read each language in their own (their upstream lang, e.g. ru_RU -> ru),
and how many fall back to the definition's language and why: a language without a catalog (by its
tag: no catalog for kk-KZ ×3) or an unknown one (only counted, never shown). Without an upstream,
or when it cannot be read, one line says so and the exit code is still the file's.

A file with problems prints one line per problem on stderr and exits 2:
  FILE:LINE:COLUMN: exports[i].field: what is wrong
(a problem of the whole file, such as a missing one: FILE: what is wrong).

Flags:
  --at DATETIME   count the next runs from this instant instead of now: an ISO 8601
                  date-time with Z or an offset, e.g. 2026-03-28T12:00:00Z

Settings: EXPORTS_FILE, EXPORT_DEST and EXPORT_DEST_ALLOW (where a dest may be), EXPORT_FORMATS
(the default formats), REPORT_LANG (the default language), EXPORT_MAX_DAYS (the longest period);
without EXPORTS_FILE also NIGHTLY_ENABLED, NIGHTLY_CRON, NIGHTLY_TZ and LOOKBACK_DAYS; for the
managers' languages WFM_BASE_URL, WFM_TOKEN or WFM_TOKEN_FILE and the other WFM_* settings. Every field of a definition, with
comments: docs/examples/exports.yaml.

Exit code 0 when every definition is valid (whether or not the upstream could be read); 1 when the
check itself fails unexpectedly; 2 for bad flags or configuration, the definitions file included.

Examples:
  EXPORTS_FILE=exports.yaml npx shift-export exports check
  EXPORTS_FILE=exports.yaml npx shift-export exports check --at 2026-03-28T12:00:00Z
`,
  async run(argv, io) {
    const [subcommand, ...rest] = argv;
    if (subcommand !== 'check') {
      const meant = subcommand === undefined ? undefined : closestName(subcommand, SUBCOMMANDS);
      throw new UsageError(
        subcommand === undefined || subcommand.startsWith('-')
          ? 'exports: give a subcommand: check (see shift-export exports --help)'
          : `exports: unknown subcommand "${oneLine(subcommand)}"${meant === undefined ? '' : `; did you mean "${meant}"?`} (see shift-export exports --help)`,
      );
    }
    const { values } = parseFlags('exports check', rest, { at: { type: 'string' } });
    const now = parseAt(values.at);
    const schedule = loadScheduleConfig(io.env);
    const exportConfig = loadExportConfig(io.env);
    const result = await loadExportDefinitions({ schedule, exportConfig });
    if (!result.ok) {
      for (const problem of result.problems) writeLine(io.stderr, formatProblem(problem));
      return 2;
    }
    const { readers, note } = await definitionReaders(result.definitions, io.env);
    writeLine(io.stdout, formatDefinitions(result.definitions, now, readers));
    if (note !== undefined) writeLine(io.stdout, `\n${note}`);
    return 0;
  },
};
