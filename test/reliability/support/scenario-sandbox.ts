// The sandbox every scenario talks to: loopback, fixed seed and dates, the suite's distinctive
// token with every role, the data shape recorded so expected rows can be computed in process.

import {
  ROLE_ORGSTRUCT_ADMIN,
  ROLE_SURVEY_ADMIN,
  ROLE_WFM_REPORTS,
  startSandbox,
  type RunningSandbox,
  type SandboxOptions,
} from 'wfm-sandbox';
import { WFM_SECRET_TOKEN } from './evidence.js';
import type { SourceShape } from './expected-rows.js';

/** Rows of the upstream-fault report: within the 50-200k, sized for 2 shared cores. */
export const REPORT_ROWS = Number(process.env['RELIABILITY_ROWS'] ?? 60_000);

export function sourceShape(rows: number, extra: Partial<SourceShape> = {}): SourceShape {
  return { seed: 7, rows, endDate: '2024-03-31', days: 7, ...extra };
}

export function startScenarioSandbox(
  shape: SourceShape,
  options: SandboxOptions = {},
): Promise<RunningSandbox> {
  return startSandbox({
    host: '127.0.0.1',
    port: 0,
    ...shape,
    tokens: {
      [WFM_SECRET_TOKEN]: [ROLE_SURVEY_ADMIN, ROLE_ORGSTRUCT_ADMIN, ROLE_WFM_REPORTS],
      'reader-without-division-role': [ROLE_WFM_REPORTS],
    },
    ...options,
  });
}
