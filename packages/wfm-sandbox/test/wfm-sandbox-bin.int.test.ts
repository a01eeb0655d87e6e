// The package's program, `wfm-sandbox` (bin/wfm-sandbox.js → dist/, built by the repository's
// `npm ci`), as a process: one start line naming the token, no log line per request unless
// LOG_LEVEL=debug, one line and exit 2 for a wrong flag, and an end with its launcher — a SIGTERM
// to `npm exec` (what npx is), which runs the bin through `sh -c`, frees the port.

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/wfm-sandbox.js', import.meta.url));
/** Marks this file's servers on their command line, so a server a failed test left is found. */
const MARK = `--seed=${3_000_000_000 + (process.pid % 1_000_000)}`;

type Started = ChildProcessByStdio<null, Readable, Readable>;

interface Run {
  readonly child: Started;
  stdout(): string;
  stderr(): string;
  /** The URL of the start line; rejects when the process ends first. */
  readonly url: Promise<string>;
  /** Resolves once the process has exited and every holder of its output has closed it. */
  readonly closed: Promise<number | null>;
}

function run(command: string, args: readonly string[], env: Record<string, string>): Run {
  const child = spawn(command, args, {
    cwd: PACKAGE,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const found = / listening on (\S+)/.exec(stdout)?.[1];
      if (found !== undefined) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before listening: ${stderr}`)));
  });
  url.catch(() => {});
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, url, closed };
}

/** Resolves with the error code of a TCP connection to `url` (undefined when it connected). */
function connectError(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
  });
}

/** Pids of processes whose command line carries MARK: servers a failed test left behind. */
function markedProcesses(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(MARK);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function getReport(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/v1/connector/rpc/wfm_timers?limit=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  return res.status;
}

afterEach(() => {
  for (const pid of markedProcesses()) process.kill(pid, 'SIGKILL');
});

describe('wfm-sandbox', () => {
  it('prints one start line naming the token and logs nothing per request at the default level', async () => {
    const sandbox = run(process.execPath, [BIN, '--port', '0', '--rows', '50', MARK], {});
    const url = await sandbox.url;
    expect(await getReport(url, 'sandbox-admin')).toBe(200);
    expect(await getReport(url, 'wrong')).toBe(401);
    sandbox.child.kill('SIGTERM');
    expect(await sandbox.closed).toBe(0);
    expect(sandbox.stdout()).toMatch(
      /^sandbox listening on http:\/\/127\.0\.0\.1:\d+ \(50 shifts, [\d-]+\.\.[\d-]+\); accepts Authorization: Bearer sandbox-admin\n$/,
    );
    expect(sandbox.stderr()).toBe('');
  });

  it('logs one JSON line per request at LOG_LEVEL=debug, without the token', async () => {
    const sandbox = run(process.execPath, [BIN, '--port', '0', '--rows', '50', MARK], { LOG_LEVEL: 'debug' });
    const url = await sandbox.url;
    expect(await getReport(url, 'sandbox-admin')).toBe(200);
    expect(await getReport(url, 'wrong')).toBe(401);
    sandbox.child.kill('SIGTERM');
    expect(await sandbox.closed).toBe(0);
    const lines = sandbox
      .stderr()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string; res?: { statusCode: number } });
    expect(lines.map((l) => [l.level, l.msg, l.res?.statusCode])).toEqual([
      [20, 'request completed', 200],
      [20, 'request completed', 401],
    ]);
    expect(sandbox.stderr()).not.toContain('sandbox-admin');
  });

  it('stops at a wrong flag or option with one line and exit 2', async () => {
    for (const [args, line] of [
      [['--rows', 'many'], 'wfm-sandbox: USAGE: --rows must be a whole number (got "many")\n'],
      [['--days', '0'], 'wfm-sandbox: CONFIG_INVALID: sandbox days must be an integer in 1..3660, got 0\n'],
      [['--port-number', '1'], "wfm-sandbox: Unknown option '--port-number' (see wfm-sandbox --help)\n"],
    ] as const) {
      const sandbox = run(process.execPath, [BIN, ...args], {});
      expect(await sandbox.closed).toBe(2);
      expect(sandbox.stderr()).toBe(line);
      expect(sandbox.stdout()).toBe('');
    }
  });

  it('ends when its launcher (npm exec → sh -c → the bin) gets SIGTERM: the port is free afterwards', async () => {
    // `npm exec -c` is npx without the package lookup: npm runs the line through `sh -c` and sends
    // the shell the signals it gets.
    const launcher = run('npm', ['exec', '--offline', '-c', `'${BIN}' --port 0 --rows 50 ${MARK}`], {});
    const url = await launcher.url;
    expect(await connectError(url)).toBeUndefined();
    launcher.child.kill('SIGTERM');
    await launcher.closed;
    expect(await connectError(url)).toBe('ECONNREFUSED');
    expect(markedProcesses()).toEqual([]);
  });
});
