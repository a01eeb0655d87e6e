// `shift-export worker` as a child process of a test (the built CLI: `npm test` builds dist/
// first), with the harness's env. Kill leftovers with killAll() in afterEach.

import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, cliEnv } from '../../support/cli.js';

export interface WorkerChild {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

const started: ChildProcess[] = [];

/**
 * `asInstalled`: the bin run as a program, so that its first line (`env -S`) sets node's flags and
 * glibc's tunable as an installed `shift-export` gets them; otherwise this node runs it, without.
 */
export function spawnWorker(env: Record<string, string>, { asInstalled = false } = {}): WorkerChild {
  const [command, args] = asInstalled ? [BIN, ['worker']] : [process.execPath, [BIN, 'worker']];
  const child = spawn(command, args, {
    env: cliEnv({ LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout?.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stderr: () => stderr };
}

/** SIGKILLs every worker child still running and waits for them to exit. */
export async function killAll(): Promise<void> {
  const running = started.splice(0).filter((c) => c.exitCode === null && c.signalCode === null);
  await Promise.all(
    running.map(
      (c) =>
        new Promise<void>((resolve) => {
          c.once('exit', () => resolve());
          c.kill('SIGKILL');
        }),
    ),
  );
}
