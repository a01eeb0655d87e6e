// The sandbox: a reference implementation of the whole WFM API (its spec: docs/wfm-api.md)
// for tests, benchmarks and first runs, with deterministic data and fault injection. Where the spec
// is silent the sandbox decides (README.md), each decision stated where it is made: tokens and
// roles in auth.ts; the error shape in http-error.ts; the order of checks (faults → 401/403 → 400
// → 404) in sandbox-context.ts; categories and divisions in routes/ and their stores; the report's
// query, paging and headers in timers-query.ts, plan-timers-page.ts and routes/wfm-timers-route.ts,
// its filters in postgrest-filter.ts and shift-filter.ts; the data in generate-world.ts and
// shift-generator.ts; faults in faults.ts, fault-controller.ts, timers-body.ts and
// write-response.ts. This file is the package's API; nothing else is exported.

export { startSandbox, type RunningSandbox, type SandboxOptions } from './start-sandbox.js';
export { SANDBOX_DEFAULTS } from './sandbox-defaults.js';
export type { SandboxDataset } from './sandbox-context.js';
export {
  DEFAULT_SANDBOX_TOKENS,
  ROLE_ORGSTRUCT_ADMIN,
  ROLE_SURVEY_ADMIN,
  ROLE_WFM_REPORTS,
  SANDBOX_ADMIN_TOKEN,
  SANDBOX_NOROLE_TOKEN,
  SANDBOX_READER_TOKEN,
  SANDBOX_ROLES,
  type SandboxTokens,
} from './auth.js';
export { FAULT_TARGETS, type FaultPlan, type FaultSpec, type FaultTarget } from './faults.js';
export { parseFaultPlan } from './fault-controller.js';
export { createSandboxReport, type SandboxReport, type SandboxReportOptions } from './sandbox-report.js';
export { HOSTILE_COMMENTS } from './hostile-text.js';
export { ID_OFFSET } from './invalid-rows.js';
export { SandboxConfigError, SandboxError, SandboxUsageError } from './sandbox-error.js';
export {
  createSandboxLogger,
  SANDBOX_LOG_LEVELS,
  silentLogger,
  type SandboxLogger,
} from './sandbox-logger.js';
export {
  SANDBOX_COMMAND_DEFAULTS,
  SANDBOX_FLAGS,
  SANDBOX_HELP,
  SANDBOX_USAGE,
  sandboxOptionsFromFlags,
  sandboxReadyLine,
  type SandboxFlagValues,
} from './sandbox-command-line.js';
export { runSandboxCli, type SandboxCliIo } from './sandbox-cli.js';
