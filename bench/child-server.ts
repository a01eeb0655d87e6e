// A server the bench needs beside the export (the sandbox, an S3), started in its own process and
// stopped with SIGTERM; ready once it prints "<what> listening on <url>".

import { spawn, type ChildProcess } from 'node:child_process';

export interface ChildServer {
  readonly url: string;
  stop(): Promise<void>;
}

export function startChildServer(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const url = / listening on (\S+)/.exec(out)?.[1];
      if (url !== undefined) resolve({ url, stop: () => stop(child) });
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited (${code}) before listening: ${err}`)),
    );
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
