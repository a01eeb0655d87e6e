// Runs the built CLI (bin/shift-export.js → dist/) as a child process, the way a user or cron does.
// `npm test` builds dist/ first.

import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/shift-export.js', import.meta.url));

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Env for a child CLI: only what the test gives, plus PATH, the test file's TMPDIR (so what the
 * child leaves there fails the file: test/support/leak-guard.ts) and the test run's EXPORT_THREADS,
 * so that a whole suite can run at a thread count (.ci/run runs the reliability suite at the default
 * and at 1).
 */
export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const threads = process.env['EXPORT_THREADS'];
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '/tmp',
    TMPDIR: tmpdir(),
    LOG_LEVEL: 'warn',
    ...(threads === undefined ? {} : { EXPORT_THREADS: threads }),
    ...extra,
  };
}

export function runCli(args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Valid settings that lead nowhere (closed ports on loopback): a value a validator let through
 * shows as a failure to connect (exit 1), not as a configuration error (exit 2).
 */
export const UNREACHABLE_SETTINGS: Readonly<Record<string, string>> = {
  WFM_BASE_URL: 'http://127.0.0.1:1',
  WFM_TOKEN: 'wfm-token-ok',
  WFM_RETRY_ATTEMPTS: '1',
  REDIS_URL: 'redis://127.0.0.1:1',
  REDIS_CONNECT_TIMEOUT_MS: '300',
  API_TOKENS: 'api-token-ok-0123456',
};

/** A CLI child still running: its output so far, and its exit code once it ends. */
export interface StartedCli {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

/** Starts `shift-export <args>` with `env` without waiting for it (runCli waits). */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv): StartedCli {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}
