// The control API (fastify): export routes, health, metrics and the Bull Board dashboard, behind
// bearer-token auth — every route except GET /healthz, which load balancers call without secrets.
// /metrics is behind the tokens too: job counts and volumes are business figures, and Prometheus
// sends a bearer token with `authorization: { credentials_file: ... }` in its scrape config.
// Bodies are JSON up to API_BODY_LIMIT_BYTES (413 beyond); every error is `{error, message}`.

import type { Queue } from 'bullmq';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { RedisClient } from '../queue/redis-connection.js';
import type { ExportConfig } from '../config/export-config.js';
import type { Logger } from '../logger.js';
import { mapError } from './api-error.js';
import { ApiMetrics } from './api-metrics.js';
import { credentialOf, tokenChecker } from './bearer-auth.js';
import { DASHBOARD_PATH, registerDashboard } from './dashboard.js';
import type { DestinationPool } from './destination-pool.js';
import { registerExportRoutes } from './exports-routes.js';
import { registerDefinitionsRoutes } from './definitions-routes.js';
import type { ExportDefinitions } from '../definitions/export-definition.js';
import { registerHealthRoute } from './health-route.js';

export interface ApiDeps {
  readonly queue: Queue;
  /** A producer connection (fails fast while Redis is down). */
  readonly redis: RedisClient;
  /** QUEUE_PREFIX: where the shared metrics live. */
  readonly prefix: string;
  readonly exportConfig: ExportConfig;
  readonly tokens: readonly string[];
  readonly bodyLimitBytes: number;
  readonly destinations: DestinationPool;
  /** The export definitions as the worker would load them now (read per request); throws ExportsFileInvalidError. */
  readonly definitions: () => Promise<ExportDefinitions>;
  /** DASHBOARD_READ_ONLY: Bull Board's write actions refused. */
  readonly dashboardReadOnly: boolean;
  readonly logger: Logger;
}

const PUBLIC_PATHS = new Set(['/healthz']);

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export async function buildApi(deps: ApiDeps): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    // Requests are logged; headers (the Authorization header above all) never are: fastify logs
    // method and URL.
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.bodyLimitBytes,
  });
  const tokens = tokenChecker(deps.tokens);

  app.addHook('onRequest', async (request, reply) => {
    const path = pathOf(request.url);
    if (PUBLIC_PATHS.has(path)) return;
    const dashboard = path === DASHBOARD_PATH || path.startsWith(`${DASHBOARD_PATH}/`);
    const credential = credentialOf(request.headers.authorization, dashboard);
    if (credential !== undefined && tokens.matches(credential)) return;
    // Answered here rather than thrown: the dashboard's plugin has an error handler of its own.
    return reply
      .code(401)
      .header(
        'www-authenticate',
        dashboard ? 'Basic realm="shift-export", charset="UTF-8"' : 'Bearer realm="shift-export"',
      )
      .send({
        error: 'unauthorized',
        message:
          credential === undefined ? 'missing bearer token (Authorization: Bearer <token>)' : 'invalid token',
      });
  });

  app.setErrorHandler((error, request, reply) => {
    const mapped = mapError(error);
    if (mapped.unexpected) request.log.error({ err: error }, 'request failed');
    return reply.code(mapped.status).send(mapped.body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send({ error: 'not_found', message: `no route ${request.method} ${pathOf(request.url)}` }),
  );

  registerExportRoutes(app, {
    mailRecords: { redis: deps.redis, prefix: deps.prefix },
    queue: deps.queue,
    exportConfig: deps.exportConfig,
    destinations: deps.destinations,
    definitions: deps.definitions,
  });
  registerDefinitionsRoutes(app, { definitions: deps.definitions });
  registerHealthRoute(app, { redis: deps.redis, destinations: deps.destinations });

  const metrics = new ApiMetrics();
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.render({ queue: deps.queue, redis: deps.redis, prefix: deps.prefix });
    return reply.type(metrics.contentType).send(text);
  });

  await registerDashboard(app, deps.queue, { readOnly: deps.dashboardReadOnly });
  return app;
}
