// Starts a sandbox: the whole WFM API (docs/wfm-api.md) on a real HTTP server,
// with deterministic data and fault injection. The same seed, rows, endDate and days give the same
// bytes on every run and machine. It logs no line of its own when it starts: whoever started it
// says so, once (sandboxReadyLine).

import type { Socket } from 'node:net';
import { dayOfSeconds, formatDay, parseDay } from 'wfm-contract/civil-time';
import { adminTokenOf, DEFAULT_SANDBOX_TOKENS, type SandboxTokens } from './auth.js';
import { CategoryStore } from './category-store.js';
import { DivisionStore } from './division-store.js';
import { FaultController, parseFaultPlan } from './fault-controller.js';
import { SANDBOX_DEFAULTS } from './sandbox-defaults.js';
import type { FaultPlan, FaultTarget } from './faults.js';
import { generateWorld } from './generate-world.js';
import { buildSandboxApp } from './sandbox-app.js';
import type { SandboxContext, SandboxDataset } from './sandbox-context.js';
import { SandboxConfigError } from './sandbox-error.js';
import { silentLogger, type SandboxLogger } from './sandbox-logger.js';
import { ShiftGenerator } from './shift-generator.js';

/** All optional; host, port (0: a free one), rows, seed and days default to SANDBOX_DEFAULTS. */
export interface SandboxOptions {
  readonly host?: string;
  readonly port?: number;
  /** Shifts in the report. */
  readonly rows?: number;
  /** 32-bit seed of every generated value. */
  readonly seed?: number;
  /** YYYY-MM-DD, the last business date with shifts (default yesterday, UTC). */
  readonly endDate?: string;
  /** Business dates with shifts, ending at endDate. */
  readonly days?: number;
  /** Token → roles (default DEFAULT_SANDBOX_TOKENS: sandbox-admin, sandbox-reader, sandbox-norole). */
  readonly tokens?: SandboxTokens;
  /** The fault plan in force from the start (faults.ts). */
  readonly faults?: FaultPlan;
  /** Rows every-1, 2·every-1, … carry a comment of at least `bytes` bytes (multi-line, quoted, emoji, =). */
  readonly longComment?: { readonly every: number; readonly bytes: number };
  /** Every row its own user_id (the bench's --cardinality line). */
  readonly userPerRow?: boolean;
  /** That many plain divisions, the shops dealt round-robin among them (the bench's --split line). */
  readonly divisions?: number;
  /** Errors, and a debug line per request (default silent). */
  readonly logger?: SandboxLogger;
}

export interface RunningSandbox {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly dataset: SandboxDataset;
  /** A token holding every role (default `sandbox-admin`), if the tokens have one. */
  readonly adminToken: string | undefined;
  /** Stops listening and destroys open connections (stalled bodies included). */
  close(): Promise<void>;
  setFaults(plan: FaultPlan): void;
  clearFaults(): void;
  /** Requests received by an endpoint ('*': all endpoints), faulted and unauthorised ones included. */
  requestCount(target: FaultTarget): number;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? SANDBOX_DEFAULTS.host;
  const port = checkInteger('port', options.port ?? SANDBOX_DEFAULTS.port, 0, 65_535);
  const rows = checkInteger('rows', options.rows ?? SANDBOX_DEFAULTS.rows, 0, 100_000_000);
  const seed = checkInteger('seed', options.seed ?? SANDBOX_DEFAULTS.seed, 0, 0xffff_ffff);
  const days = checkInteger('days', options.days ?? SANDBOX_DEFAULTS.days, 1, 3660);
  const lastDay =
    options.endDate === undefined
      ? dayOfSeconds(Math.floor(Date.now() / 1000)) - 1
      : parseDay(options.endDate);
  if (lastDay === undefined)
    throw new SandboxConfigError(`sandbox endDate "${options.endDate ?? ''}" is not a date (YYYY-MM-DD)`);
  const firstDay = lastDay - days + 1;
  const longComment =
    options.longComment === undefined
      ? undefined
      : {
          every: checkInteger('longComment.every', options.longComment.every, 1, Number.MAX_SAFE_INTEGER),
          bytes: checkInteger('longComment.bytes', options.longComment.bytes, 1, 64 * 1024 * 1024),
        };
  let faultPlan: FaultPlan;
  try {
    faultPlan = parseFaultPlan(options.faults ?? {});
  } catch (error) {
    throw new SandboxConfigError(`sandbox faults: ${error instanceof Error ? error.message : String(error)}`);
  }

  const divisionCount =
    options.divisions === undefined ? undefined : checkInteger('divisions', options.divisions, 1, 100_000);
  const world = generateWorld(seed, rows, divisionCount);
  const generator = new ShiftGenerator(world, {
    seed,
    rows,
    firstDay,
    lastDay,
    longComment,
    userPerRow: options.userPerRow,
  });
  const tokens = options.tokens ?? DEFAULT_SANDBOX_TOKENS;
  const context: SandboxContext = {
    seed,
    tokens,
    generator,
    categories: new CategoryStore(
      seed,
      world.users.slice(0, 50).map((u) => u.id),
    ),
    divisions: new DivisionStore(world, generator),
    faults: new FaultController(seed, faultPlan),
    requestCounts: new Map(),
    requestFaults: new WeakMap(),
  };
  const dataset: SandboxDataset = Object.freeze({
    seed,
    rows,
    firstDate: formatDay(firstDay),
    lastDate: formatDay(lastDay),
    divisions: world.divisions.length,
    regions: world.regions.length,
    shops: world.shops.length,
    users: world.users.length,
  });

  const app = buildSandboxApp(context, dataset, options.logger ?? silentLogger);
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // fastify's listen() would log a "Server listening" line at info; the caller prints its own.
  await app.ready();
  try {
    await new Promise<void>((resolve, reject) => {
      app.server.once('error', reject);
      app.server.listen({ host, port }, () => {
        app.server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('sandbox: no TCP address');
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    dataset,
    adminToken: adminTokenOf(tokens),
    close() {
      closing ??= (async () => {
        for (const socket of sockets) socket.destroy();
        await app.close();
      })();
      return closing;
    },
    setFaults(plan) {
      context.faults.set(parseFaultPlan(plan));
    },
    clearFaults() {
      context.faults.clear();
    },
    requestCount(target) {
      return context.requestCounts.get(target) ?? 0;
    },
  };
}

function checkInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SandboxConfigError(`sandbox ${name} must be an integer in ${min}..${max}, got ${value}`);
  }
  return value;
}
