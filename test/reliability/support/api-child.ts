// `shift-export api` as a child process on a free loopback port, ready once /healthz answers; its
// stderr is kept for the secret sweep when it stops.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { BIN, cliEnv } from '../../support/cli.js';
import { keepText } from './evidence.js';

export interface ApiChild {
  readonly base: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export async function startApiChild(name: string, env: Record<string, string>): Promise<ApiChild> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'api'], {
    env: cliEnv({ LOG_LEVEL: 'info', ...env, API_HOST: '127.0.0.1', API_PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout?.resume();
  const base = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    keepText(`api-${name}`, stderr);
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API exited (${child.exitCode}): ${stderr.trim()}`);
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the API did not become healthy within 20 s: ${stderr.trim()}`);
    }
    // Readiness polling of a process we just spawned, not test synchronisation.
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, child, stop };
}
