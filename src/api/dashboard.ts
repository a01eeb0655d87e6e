// Bull Board, the queue dashboard, at /admin/queues: jobs by state, their data, progress, failure
// reasons and return values, with retry and clean actions. It has no auth of its own; build-api.ts
// puts it behind the API tokens like every other route.

import { createBullBoard } from '@bull-board/api';
import type { IServerAdapter } from '@bull-board/api/typings/app';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';

export const DASHBOARD_PATH = '/admin/queues';

export async function registerDashboard(app: FastifyInstance, queue: Queue): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  createBullBoard({
    queues: [new BullMQAdapter(queue)],
    // @bull-board/fastify 9.10.1 pins its own @bull-board/api 9.10.1 beside our 9.10.2: the same
    // interface from two copies, which TypeScript tells apart by their private members.
    serverAdapter: serverAdapter as unknown as IServerAdapter,
    options: { uiConfig: { boardTitle: 'shift-export' } },
  });
  serverAdapter.setBasePath(DASHBOARD_PATH);
  await app.register(serverAdapter.registerPlugin(), { prefix: DASHBOARD_PATH });
}
