// Runs the section "Run the service on one machine without Docker" of docs/operations.md as written: its fenced blocks, in
// order, in one bash, on free loopback ports in a temporary folder. The last block (stop
// everything) also runs when an earlier one failed, so no process of the recipe outlives the test.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from './support/redis-server.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TITLE = '## Run the service on one machine without Docker';
const PAGE = join(ROOT, 'docs', 'operations.md');

/** The shell blocks of the section, in order. */
function recipeBlocks(page: string): string[] {
  const start = page.indexOf(`\n${TITLE}\n`);
  if (start < 0) throw new Error(`docs/operations.md has no section "${TITLE}"`);
  const rest = page.slice(start + TITLE.length + 2);
  const section = rest.slice(0, rest.search(/^#{1,3} /m));
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until the recipe's processes (their pid files) have exited; kills what is left at the deadline. */
async function awaitExit(home: string): Promise<string[]> {
  const pids = ['api', 'worker', 'sandbox', 'redis']
    .map((name) => join(home, `${name}.pid`))
    .filter((file) => existsSync(file))
    .map((file) => Number(readFileSync(file, 'utf8').trim()))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
  const deadline = Date.now() + 30_000;
  while (pids.some(alive) && Date.now() < deadline) {
    // Polling processes that are not ours to wait on (bash started them), with a deadline.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const left = pids.filter(alive);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  return left.map(String);
}

/** The recipe's logs, for the message of a failed run (the folder is removed afterwards). */
function logs(home: string): string {
  return ['redis', 'sandbox', 'worker', 'api']
    .map((name) => join(home, `${name}.log`))
    .filter((file) => existsSync(file))
    .map((file) => `--- ${file}\n${readFileSync(file, 'utf8').slice(-4000)}`)
    .join('\n');
}

describe('docs/operations.md: run the service on one machine without Docker', () => {
  it('has blocks for settings, Redis, the sandbox, a worker and the API, queueing, status, download and stop', () => {
    const blocks = recipeBlocks(readFileSync(PAGE, 'utf8'));
    const all = blocks.join('\n');
    for (const part of [
      'redis-server',
      'sandbox',
      ' worker',
      ' api',
      'POST',
      '/exports/$JOB_ID',
      '/files/shifts.csv',
    ])
      expect(all).toContain(part);
    expect(blocks.at(-1)).toContain('kill');
  });

  it('queues an export with curl, sees it complete and downloads its shifts.csv', async () => {
    const blocks = recipeBlocks(readFileSync(PAGE, 'utf8'));
    const stop = blocks.at(-1) ?? '';
    const home = mkdtempSync(join(tmpdir(), 'local-service-'));
    const [redisPort, sandboxPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      SHIFT_HOME: home,
      REDIS_PORT: String(redisPort),
      SANDBOX_PORT: String(sandboxPort),
      API_PORT: String(apiPort),
    };
    // The settings block is sourced again before `stop`, which needs its variables.
    const settings = blocks[0] ?? '';
    try {
      const run = await bash(blocks.slice(0, -1).join('\n'), env);
      expect(run.code, `${run.output}\n${logs(home)}`).toBe(0);
      expect(run.output).toMatch(/"jobId":"export-2026-11-14_2026-11-20-/);
      expect(run.output).toMatch(/State\s+completed/);
      const csv = readFileSync(join(home, 'shifts.csv'), 'utf8');
      expect(csv.split('\n').length).toBeGreaterThan(100);
      expect(run.output).toContain(csv.split('\n')[0]);
    } finally {
      const stopped = await bash(`${settings}\n${stop}`, env);
      const left = await awaitExit(home);
      rmSync(home, { recursive: true, force: true });
      expect(stopped.code, stopped.output).toBe(0);
      expect(left, 'processes of the recipe still running after its stop block').toEqual([]);
    }
  }, 240_000);
});
