// The sandbox's fastify application: routes per resource, one error shape (`{error, message}`),
// a hard close (open sockets — a stalled body included — are destroyed, not waited for), and one
// debug line per request (fastify's default is two info lines: a busy test or bench drowned in
// them).

import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { z, ZodError } from 'zod';
import type { SandboxLogger } from './sandbox-logger.js';
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
  logger: SandboxLogger,
): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    logController: new RequestLog(),
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

/**
 * A request is one debug line once answered; a failed one stays at error. A client that goes away
 * mid-body (what the reset and stall faults provoke) is the client's business: debug as well.
 */
class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.debug(line, 'request completed');
  }

  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if ((error as { code?: unknown }).code === 'ERR_STREAM_PREMATURE_CLOSE')
      reply.log.debug({ res: reply }, 'stream closed prematurely');
    else super.streamError(error, request, reply);
  }
}
