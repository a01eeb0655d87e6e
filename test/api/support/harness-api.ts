// The control API over real HTTP on 127.0.0.1, built on a queue test harness (its queue, Redis
// connection, export settings and logger), as `shift-export api` builds it.

import { buildApi } from '../../../src/api/build-api.js';
import { DestinationPool } from '../../../src/api/destination-pool.js';
import { loadS3Config } from '../../../src/config/s3-config.js';
import { requireExportDefinitions } from '../../../src/definitions/load-export-definitions.js';
import type { Harness } from '../../queue/support/queue-harness.js';

export interface HarnessApi {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  close(): Promise<void>;
}

export async function startHarnessApi(
  harness: Harness,
  options: {
    readonly tokens: readonly string[];
    readonly bodyLimitBytes: number;
    /** Default true, as DASHBOARD_READ_ONLY. */
    readonly dashboardReadOnly?: boolean;
  },
): Promise<HarnessApi> {
  const destinations = new DestinationPool(
    harness.exportConfig.dest,
    () => loadS3Config(harness.env),
    harness.logger,
  );
  const app = await buildApi({
    queue: harness.producer.queue,
    redis: harness.producer.connection,
    prefix: harness.prefix,
    exportConfig: harness.exportConfig,
    tokens: options.tokens,
    bodyLimitBytes: options.bodyLimitBytes,
    destinations,
    definitions: () =>
      requireExportDefinitions({ schedule: harness.schedule, exportConfig: harness.exportConfig }),
    dashboardReadOnly: options.dashboardReadOnly ?? true,
    logger: harness.logger,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      await destinations.close();
    },
  };
}
