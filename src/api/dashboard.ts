// Bull Board, the queue dashboard, at /admin/queues: jobs by state, their data, progress, failure
// reasons and return values, with retry and clean actions. It has no auth of its own; build-api.ts
// puts it behind the API tokens like every other route.

import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';

export const DASHBOARD_PATH = '/admin/queues';

export async function registerDashboard(app: FastifyInstance, queue: Queue): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  createBullBoard({
    queues: [new BullMQAdapter(queue)],
    serverAdapter,
    options: { uiConfig: { boardTitle: 'shift-export' } },
  });
  serverAdapter.setBasePath(DASHBOARD_PATH);
  await app.register(serverAdapter.registerPlugin(), { prefix: DASHBOARD_PATH });
}
