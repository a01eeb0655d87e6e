// The flags `enqueue` and `backfill` share: --from, --to, --format, --dest, --force, --wait,
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

export async function parseExportRequestFlags(
  command: string,
  argv: readonly string[],
  io: CliIo,
  options: { readonly backfill?: boolean } = {},
): Promise<ExportRequestFlags> {
  const { values } = parseFlags(command, argv, {
    from: { type: 'string' },
    to: { type: 'string' },
    format: { type: 'string' },
    dest: { type: 'string' },
    force: { type: 'boolean' },
    wait: { type: 'boolean' },
  });
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
