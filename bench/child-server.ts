// A server the bench needs beside the export (the sandbox, an S3), started in its own process and
// stopped with SIGTERM; ready once it prints "<what> listening on <url>".

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatDay, parseDay } from 'wfm-contract/civil-time';

/** The CLI the bench runs (from dist/bench/). */
export const BIN = fileURLToPath(new URL('../../bin/shift-export.js', import.meta.url));
const shebang = (): string => readFileSync(BIN, 'utf8').split('\n', 1)[0] ?? '';

/** The V8 flags of the bin's shebang (`#!/usr/bin/env -S NAME=value node --flag`): how the product starts. */
export function shebangFlags(): string[] {
  return shebang()
    .replace(/^#!.*?\bnode\b/, '')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
}

/** The environment the bin's shebang sets before node (`NAME=value` words given to `env -S`). */
export function shebangEnv(): Record<string, string> {
  const before = /^#!\S*env -S (.*?)\bnode\b/.exec(shebang())?.[1] ?? '';
  return Object.fromEntries(
    before
      .trim()
      .split(/\s+/)
      .filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word))
      .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  );
}

/** The last day of the sandbox's report: every bench asks for the same fixed span. */
export const SANDBOX_END_DATE = '2024-03-31';

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
      if (url !== undefined) resolve({ url, stop: () => stopChild(child) });
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited (${code}) before listening: ${err}`)),
    );
  });
}

/** The sandbox (fixed seed) with `rows` rows over `days` days ending SANDBOX_END_DATE. */
export function startBenchSandbox(
  rows: number,
  days: number,
  extra: readonly string[] = [],
): Promise<ChildServer> {
  return startChildServer([
    BIN,
    'sandbox',
    '--port',
    '0',
    '--rows',
    String(rows),
    '--end-date',
    SANDBOX_END_DATE,
    '--days',
    String(days),
    ...extra,
  ]);
}

/** `run`'s arguments for an export of the bench sandbox's `days` days (ending SANDBOX_END_DATE). */
export function sandboxRunArgs(days: number, formats: string, dest: string): string[] {
  const from = formatDay((parseDay(SANDBOX_END_DATE) ?? 0) - days + 1);
  return ['run', '--from', from, '--to', SANDBOX_END_DATE, '--format', formats, '--dest', dest];
}

/** SIGTERM, resolved once the process has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
