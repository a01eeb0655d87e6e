// Defaults shared by a running sandbox (start-sandbox.ts) and its report in process (sandbox-report.ts).

export const SANDBOX_DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 0,
  rows: 10_000,
  seed: 1,
  days: 28,
});
