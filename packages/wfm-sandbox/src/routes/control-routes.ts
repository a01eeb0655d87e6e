// Run-time control of a sandbox from another process (benchmarks, reliability tests): replace or
// clear the fault plan and read request counters. No auth and no faults: the sandbox is a test
// double on loopback.

import type { FastifyInstance } from 'fastify';
import { parseFaultPlan } from '../fault-controller.js';
import type { SandboxContext, SandboxDataset } from '../sandbox-context.js';

export function registerControlRoutes(
  app: FastifyInstance,
  context: SandboxContext,
  dataset: SandboxDataset,
): void {
  app.get('/_sandbox/faults', () => ({ faults: context.faults.plan }));

  app.put('/_sandbox/faults', (request) => {
    context.faults.set(parseFaultPlan(request.body ?? {}));
    return { faults: context.faults.plan };
  });

  app.delete('/_sandbox/faults', () => {
    context.faults.clear();
    return { faults: context.faults.plan };
  });

  app.get('/_sandbox/stats', () => ({
    requests: {
      '*': context.requestCounts.get('*') ?? 0,
      wfm_timers: context.requestCounts.get('wfm_timers') ?? 0,
      divisions: context.requestCounts.get('divisions') ?? 0,
      categories: context.requestCounts.get('categories') ?? 0,
    },
    faults: context.faults.plan,
    dataset,
  }));
}
