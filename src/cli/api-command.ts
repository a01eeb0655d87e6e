// `shift-export api`: the control API (src/api) until SIGTERM or SIGINT. fastify, the dashboard
// and the queue library are loaded when the command runs.

import { loadApiConfig } from '../config/api-config.js';
import { loadExportConfig } from '../config/export-config.js';
import { loadLogLevel } from '../config/log-level.js';
import { loadQueueConfig } from '../config/queue-config.js';
import { loadS3Config } from '../config/s3-config.js';
import { createLogger } from '../logger.js';
import { loadQueueTuning } from '../config/queue-tuning.js';
import { loadScheduleConfig } from '../config/schedule-config.js';
import { requireExportDefinitions } from '../definitions/load-export-definitions.js';
import { parseFlags, type Command, REDIS_SETTINGS_HELP } from './command.js';

export const apiCommand: Command = {
  name: 'api',
  summary: 'serve the control API, metrics and the queue dashboard (needs Redis)',
  help: `
Usage: shift-export api

Serves on API_HOST:API_PORT (default 0.0.0.0:3000):
  POST /exports {from, to, formats?, dest?, force?}   queue an export: 202 {jobId}; 200 when the
                                                      same export is already queued or running
  POST /exports {export, date?, force?}               queue the run of the export definition
                                                      "export" (EXPORTS_FILE) that its schedule
                                                      would make on local date "date" (default:
                                                      today in its zone): 202 {export, date, jobs}
  GET  /definitions[?runs=N]                          the export definitions with their next N
                                                      runs (default 3) and the periods each exports
  GET  /exports/:id                                   state, progress, failure reason, counts, files
  GET  /exports/:id/files/:name                       a file of the export (S3: a redirect to a
                                                      presigned URL valid 5 minutes, signed for
                                                      S3_PUBLIC_ENDPOINT when set)
  GET  /healthz                                       200 when Redis and EXPORT_DEST are reachable
  GET  /metrics                                       Prometheus metrics
  GET  /admin/queues                                  the Bull Board dashboard (read-only unless
                                                      DASHBOARD_READ_ONLY=false)

Every route but /healthz needs "Authorization: Bearer <token>" with one of API_TOKENS (or of
the file API_TOKENS_FILE names, such as a compose secret); the dashboard also accepts the token
as the password of HTTP Basic auth, for browsers. Bodies are JSON of at most API_BODY_LIMIT_BYTES.
Logs JSON lines to stderr (LOG_LEVEL).

${REDIS_SETTINGS_HELP}

Exit code 0 once stopped by SIGTERM or SIGINT; 1 when Redis cannot be reached at start or
API_HOST:API_PORT cannot be listened on; 2 for bad flags or configuration.

Examples:
  API_TOKENS=$(openssl rand -hex 24) REDIS_URL=redis://redis:6379 npx shift-export api
  curl -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
    -d '{"from":"2026-11-01","to":"2026-11-07","formats":["csv"]}' http://localhost:3000/exports
`,
  async run(argv, io) {
    parseFlags('api', argv, {});
    const apiConfig = loadApiConfig(io.env);
    const queueConfig = loadQueueConfig(io.env);
    const exportConfig = loadExportConfig(io.env);
    const tuning = loadQueueTuning(io.env);
    const schedule = loadScheduleConfig(io.env);
    const logger = createLogger({
      level: loadLogLevel(io.env),
      destination: io.stderr,
      name: 'shift-export-api',
    });
    const [{ openProducer }, { buildApi }, { DestinationPool }] = await Promise.all([
      import('../queue/producer.js'),
      import('../api/build-api.js'),
      import('../api/destination-pool.js'),
    ]);
    const producer = await openProducer({ config: queueConfig, tuning, logger });
    const destinations = new DestinationPool(exportConfig.dest, () => loadS3Config(io.env), logger);
    const app = await buildApi({
      queue: producer.queue,
      redis: producer.connection,
      prefix: queueConfig.prefix,
      exportConfig,
      tokens: apiConfig.tokens,
      bodyLimitBytes: apiConfig.bodyLimitBytes,
      destinations,
      definitions: () => requireExportDefinitions({ schedule, exportConfig }),
      dashboardReadOnly: apiConfig.dashboardReadOnly,
      logger,
    });
    try {
      await app.listen({ host: apiConfig.host, port: apiConfig.port });
    } catch (error) {
      await producer.close();
      throw error;
    }
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    });
    logger.info({ signal }, 'stopping the API');
    await app.close();
    await destinations.close();
    await producer.close();
    return 0;
  },
};
