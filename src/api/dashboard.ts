// Bull Board, the queue dashboard, at /admin/queues: jobs by state, their data, progress, failure
// reasons and return values. It has no auth of its own; build-api.ts puts it behind the API tokens
// like every other route. Read-only unless DASHBOARD_READ_ONLY=false: its write actions (add a job,
// edit its data, retry, clean, pause, empty, obliterate...) let a token holder put any job data into
// Redis. Two locks, because Bull Board's own read-only mode hides the buttons and answers 405 on
// most write routes but answers pause-all and resume-all with a silent 200, and a future version
// may add write routes: every request but GET and HEAD under the dashboard is refused here first.
// Even with the dashboard writable, a job's destination is checked by the worker that runs it.
// Its page is served as dashboard-page.ts makes it: everything from this API, none from the internet.

import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { sendError } from './api-error.js';
import { localDashboardPage } from './dashboard-page.js';

export const DASHBOARD_PATH = '/admin/queues';

const READ_METHODS = new Set(['GET', 'HEAD']);

interface DashboardOptions {
  /** DASHBOARD_READ_ONLY */
  readonly readOnly: boolean;
}

export async function registerDashboard(
  app: FastifyInstance,
  queue: Queue,
  options: DashboardOptions,
): Promise<void> {
  if (options.readOnly) {
    // Registered after the auth hook: a caller without a token still gets 401 first.
    app.addHook('onRequest', async (request, reply) => {
      const path = request.url.split('?', 1)[0] ?? '';
      if (!(path === DASHBOARD_PATH || path.startsWith(`${DASHBOARD_PATH}/`))) return;
      if (READ_METHODS.has(request.method)) return;
      return sendError(
        reply.header('allow', 'GET, HEAD'),
        405,
        'read_only',
        'the dashboard is read-only (DASHBOARD_READ_ONLY=true); use POST /exports or the CLI to queue exports',
      );
    });
  }
  app.addHook('onSend', async (request, reply, payload) => {
    const path = request.url.split('?', 1)[0] ?? '';
    const html = String(reply.getHeader('content-type') ?? '').startsWith('text/html');
    if (!html || typeof payload !== 'string') return payload;
    if (!(path === DASHBOARD_PATH || path.startsWith(`${DASHBOARD_PATH}/`))) return payload;
    return localDashboardPage(payload);
  });
  const serverAdapter = new FastifyAdapter();
  createBullBoard({
    queues: [new BullMQAdapter(queue, { readOnlyMode: options.readOnly })],
    serverAdapter,
    options: { uiConfig: { boardTitle: 'shift-export' } },
  });
  serverAdapter.setBasePath(DASHBOARD_PATH);
  await app.register(serverAdapter.registerPlugin(), { prefix: DASHBOARD_PATH });
}
