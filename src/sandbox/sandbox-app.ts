// The sandbox's fastify application: routes per resource, one error shape (`{error, message}`),
// and a hard close (open sockets — a stalled body included — are destroyed, not waited for).

import Fastify, { type FastifyInstance } from 'fastify';
import { z, ZodError } from 'zod';
import type { Logger } from '../logger.js';
import { HttpError, sendError } from './http-error.js';
import { FilterSyntaxError } from './postgrest-filter.js';
import { registerCategoryRoutes } from './routes/category-routes.js';
import { registerControlRoutes } from './routes/control-routes.js';
import { registerDivisionRoutes } from './routes/division-routes.js';
import { registerWfmTimersRoute } from './routes/wfm-timers-route.js';
import type { SandboxContext, SandboxDataset } from './sandbox-context.js';

export function buildSandboxApp(
  context: SandboxContext,
  dataset: SandboxDataset,
  logger: Logger,
): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    forceCloseConnections: true,
    exposeHeadRoutes: false,
  }) as unknown as FastifyInstance;

  // JSON bodies as usual, except that an empty one is no body (a DELETE sent with a JSON
  // Content-Type must not fail); what needs a body then fails its schema with 400.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text) as unknown);
    } catch (error) {
      done(
        new HttpError(400, `invalid JSON body: ${error instanceof Error ? error.message : String(error)}`),
        undefined,
      );
    }
  });

  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof HttpError) return sendError(reply, error.status, error.message, error.extra.code);
    if (error instanceof FilterSyntaxError) return sendError(reply, 400, error.message, 'PGRST100');
    if (error instanceof ZodError) return sendError(reply, 400, `invalid body: ${z.prettifyError(error)}`);
    const statusCode = (error as { statusCode?: unknown }).statusCode;
    const status = typeof statusCode === 'number' && statusCode >= 400 && statusCode < 600 ? statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'sandbox: request failed');
    const message = error instanceof Error && status < 500 ? error.message : 'internal error';
    return sendError(reply, status, message);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, `no route for ${request.method} ${request.url.split('?')[0] ?? ''}`),
  );

  registerCategoryRoutes(app, context);
  registerDivisionRoutes(app, context);
  registerWfmTimersRoute(app, context);
  registerControlRoutes(app, context, dataset);
  return app;
}
