// `shift-export sandbox` as a process, started the ways people start it: its one start line names
// the token; at the default level a request writes no log line; and it ends with its launcher — a
// SIGTERM to `npm exec` (what npx is), which runs the bin through `sh -c`, frees the port.

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, startCli } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Marks this file's servers on their command line, so a server a failed test left is found. */
const MARK = `--seed=${4_000_000_000 + (process.pid % 1_000_000)}`;

type Launched = ChildProcessByStdio<null, Readable, Readable>;

/** Resolves with the URL of the sandbox's start line on `stdout`, rejects when the process ends first. */
function listeningUrl(child: Launched): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const url = / listening on (\S+)/.exec(out)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before listening: ${out}`)));
  });
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

afterEach(() => {
  for (const pid of markedProcesses()) process.kill(pid, 'SIGKILL');
});

describe('shift-export sandbox as a process', () => {
  it('prints one start line naming the token, and logs no line per request at the default level', async () => {
    const cli = startCli(['sandbox', '--port', '0', '--rows', '100', MARK], cliEnv({ LOG_LEVEL: 'info' }));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        cli.child.stdout?.on('data', () => {
          const found = / listening on (\S+)/.exec(cli.stdout())?.[1];
          if (found !== undefined) resolve(found);
        });
        void cli.exited.then((code) => reject(new Error(`exited (${code}): ${cli.stderr()}`)));
      });
      for (const token of ['sandbox-admin', 'wrong']) {
        const res = await fetch(`${url}/v1/connector/rpc/wfm_timers?limit=1`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(res.status).toBe(token === 'wrong' ? 401 : 200);
        await res.arrayBuffer();
      }
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toMatch(
        /^sandbox listening on http:\/\/127\.0\.0\.1:\d+ \(100 shifts, \d{4}-\d\d-\d\d\.\.\d{4}-\d\d-\d\d\); accepts Authorization: Bearer sandbox-admin\n$/,
      );
      expect(cli.stderr()).toBe('');
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('ends when its launcher (npm exec → sh -c → the bin) gets SIGTERM: the port is free afterwards', async () => {
    // `npm exec -c` is npx without the package lookup: npm runs the line through `sh -c` and sends
    // the shell the signals it gets. The bin is run by its path, shebang and all, as npx runs it.
    const launcher = spawn(
      'npm',
      ['exec', '--offline', '-c', `'${BIN}' sandbox --port 0 --rows 100 ${MARK}`],
      {
        cwd: ROOT,
        env: cliEnv({ LOG_LEVEL: 'warn' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    launcher.stderr.resume();
    const url = await listeningUrl(launcher);
    expect(await connectError(url)).toBeUndefined();
    // 'close' comes once every process holding the launcher's stdout — the server last — has exited.
    const closed = new Promise<void>((resolve) => launcher.once('close', () => resolve()));
    launcher.kill('SIGTERM');
    await closed;
    expect(await connectError(url)).toBe('ECONNREFUSED');
    expect(markedProcesses()).toEqual([]);
  });
});
