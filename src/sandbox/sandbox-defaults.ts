// Defaults shared by a running sandbox and the in-process shift source.

export const SANDBOX_DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 0,
  rows: 10_000,
  seed: 1,
  days: 28,
});
