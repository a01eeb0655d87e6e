// The flags of an export's period (--from, --to, --format, --dest; `run` takes them too) and of a
// queued request (--force, --wait), declared once for `run`, `enqueue` and `backfill`,
// parsed strictly and checked into job data before anything touches Redis. A --dest outside
// EXPORT_DEST and EXPORT_DEST_ALLOW is refused here already (the worker would refuse the job).

import { loadExportConfig } from '../config/export-config.js';
import { assertDestinationAllowed, destinationRoots } from '../destinations/allowed-destination.js';
import { parseDestination } from '../destination-address.js';
import type { ExportJobData } from '../queue/export-job-data.js';
import { checkExportRequest } from '../queue/export-request.js';
import type { CliIo } from './command.js';
import { parseFlags, UsageError } from './command.js';

export interface ExportRequestFlags {
  readonly data: ExportJobData;
  readonly force: boolean;
  readonly wait: boolean;
}

/** The flags of one period's export: `run`, `enqueue` and `backfill` take them. */
export const PERIOD_FLAGS = {
  from: { type: 'string' },
  to: { type: 'string' },
  format: { type: 'string' },
  dest: { type: 'string' },
} as const;

/** What a queued request adds to them: `enqueue` and `backfill`. */
export const QUEUE_FLAGS = {
  force: { type: 'boolean' },
  wait: { type: 'boolean' },
} as const;

/** The values of PERIOD_FLAGS and QUEUE_FLAGS as parseFlags gives them. */
export interface ExportRequestValues {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly format?: string | undefined;
  readonly dest?: string | undefined;
  readonly force?: boolean | undefined;
  readonly wait?: boolean | undefined;
}

export async function parseExportRequestFlags(
  command: string,
  argv: readonly string[],
  io: CliIo,
  options: { readonly backfill?: boolean } = {},
): Promise<ExportRequestFlags> {
  const { values } = parseFlags(command, argv, { ...PERIOD_FLAGS, ...QUEUE_FLAGS });
  return exportRequestOf(command, values, io, options);
}

/** The request that flags already parsed (with PERIOD_FLAGS and QUEUE_FLAGS among others) ask for. */
export async function exportRequestOf(
  command: string,
  values: ExportRequestValues,
  io: CliIo,
  options: { readonly backfill?: boolean } = {},
): Promise<ExportRequestFlags> {
  if (values.from === undefined) throw new UsageError(`${command}: --from is required (YYYY-MM-DD)`);
  if (values.to === undefined) throw new UsageError(`${command}: --to is required (YYYY-MM-DD)`);
  const exportConfig = loadExportConfig(io.env);
  const data = checkExportRequest(
    { from: values.from, to: values.to, formats: values.format, dest: values.dest },
    exportConfig,
    parseDestination,
    options,
  );
  if (data.dest !== undefined) await assertDestinationAllowed(data.dest, destinationRoots(exportConfig));
  return { data, force: values.force === true, wait: values.wait === true };
}
