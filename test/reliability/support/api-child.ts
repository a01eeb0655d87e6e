// `shift-export api` as a child process on a loopback port of the system's choosing, ready once
// /healthz answers; its stderr is kept for the secret sweep when it stops.

import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, cliEnv } from '../../support/cli.js';
import { keepText } from './evidence.js';

export interface ApiChild {
  readonly base: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The port an API child started with API_PORT=0 (and LOG_LEVEL=info) listens on, from fastify's
 * "Server listening at" log line. A port picked by freePort() and handed to the child can be taken
 * by another test's server before the child binds it; the probe then talks to that server.
 */
export function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (d: Buffer | string): void => {
      seen += d.toString();
      const port = /"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(seen)?.[1];
      if (port === undefined) return;
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      resolve(Number(port));
    };
    const onExit = (code: number | null): void =>
      reject(new Error(`the API exited (${code}) before listening: ${seen.trim()}`));
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

export async function startApiChild(name: string, env: Record<string, string>): Promise<ApiChild> {
  const child = spawn(process.execPath, [BIN, 'api'], {
    env: cliEnv({ LOG_LEVEL: 'info', ...env, API_HOST: '127.0.0.1', API_PORT: '0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout?.resume();
  const port = await listeningPort(child);
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
