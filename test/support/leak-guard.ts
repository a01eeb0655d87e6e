// Like graphile-worker's test helpers ("failed to release all workers"): a test that leaves a Redis
// connection, a listening server or a child process behind fails, naming what it left and where it
// was created. Resources are seen where every one of them is born — ioredis clients (ours, BullMQ's
// duplicates, production's connectRedis), net servers (sandbox, API, receivers, the S3 server) and
// child processes — by wrapping one prototype method each, so production code is tracked as it
// runs, unchanged. Helpers may give a resource a clearer name with nameResource().
//
// A resource created inside a test (or its beforeEach) must be released by the end of that test;
// one created in a beforeAll may live until the end of the file.
//
// Temp files and folders too: each test file gets a TMPDIR of its own (useFileTempDir), which the
// CLI children it starts inherit through cliEnv, so what is left there at the end of the file was
// left by that file, whichever worker ran it beside it; checkTempDirEmpty() fails naming each
// entry, with where the test made it when it came from mkdtemp in this process.

import { AsyncLocalStorage } from 'node:async_hooks';
import { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

export type LeakScope = 'test' | 'file';

interface Tracked {
  readonly kind: string;
  readonly createdAt: string;
  readonly scope: LeakScope;
  readonly resource: object;
  /** 'open', 'released', or a promise that settles when a close already asked for is done. */
  state(): 'open' | 'released' | Promise<void>;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tracked = new Map<object, Tracked>();
const names = new WeakMap<object, string>();
let currentScope: LeakScope = 'file';
const scopeOverride = new AsyncLocalStorage<LeakScope>();

/** Called by the setup file: resources created from now on belong to the test (or the file). */
export function enterScope(scope: LeakScope): void {
  currentScope = scope;
}

/** The scope a resource created here and now would belong to. */
export function currentLeakScope(): LeakScope {
  return scopeOverride.getStore() ?? currentScope;
}

/**
 * Runs `create` so that what it opens (also later, from callbacks it set up) belongs to `scope`:
 * a harness made in beforeAll that starts a worker during a test keeps it for the file.
 */
export function inLeakScope<T>(scope: LeakScope, create: () => T): T {
  return scopeOverride.run(scope, create);
}

/** Runs `create` in the scope of `resource` (e.g. a server restarted in place of the one it was). */
export function inScopeOf<T>(resource: object, create: () => T): T {
  return inLeakScope(tracked.get(resource)?.scope ?? currentLeakScope(), create);
}

/** A clearer name for a tracked resource in the guard's message (e.g. "sandbox HTTP server"). */
export function nameResource<T extends object>(resource: T, name: string): T {
  names.set(resource, name);
  return resource;
}

/** The first frame in a test file (else in test/, else outside node_modules and node itself). */
function creationSite(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames = stack
    .split('\n')
    .slice(1)
    .map((line) => /\(?((?:file:\/\/)?\/[^()]+?):(\d+):\d+\)?$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => {
      const file = m[1]!.startsWith('file://') ? fileURLToPath(m[1]!) : m[1]!;
      return { file: relative(ROOT, file), line: m[2]! };
    })
    .filter((f) => f.file !== 'test/support/leak-guard.ts' && !f.file.startsWith('..'));
  const pick =
    frames.find((f) => /\.(test|scenario)\.ts$/.test(f.file)) ??
    frames.find((f) => f.file.startsWith('test/')) ??
    frames.find((f) => !f.file.includes('node_modules'));
  return pick === undefined ? 'an unknown place' : `${pick.file}:${pick.line}`;
}

function track(resource: object, kind: string, state: Tracked['state']): void {
  if (tracked.has(resource)) return;
  tracked.set(resource, { kind, createdAt: creationSite(), scope: currentLeakScope(), resource, state });
}

function ended(emitter: NodeJS.EventEmitter, event: string): Promise<void> {
  return new Promise((resolve) => emitter.once(event, () => resolve()));
}

// ioredis calls setStatus() from its constructor ('wait' or 'connecting'), so this sees every client
// at birth, with the stack of whoever created it.
interface RedisInternals extends NodeJS.EventEmitter {
  readonly status: string;
  readonly manuallyClosing: boolean;
  readonly reconnectTimeout: NodeJS.Timeout | null | undefined;
  setStatus(...args: unknown[]): void;
}
const redisPrototype = Redis.prototype as unknown as RedisInternals;
const setStatus = redisPrototype.setStatus;
redisPrototype.setStatus = function (this: RedisInternals, ...args: unknown[]) {
  track(this, 'Redis connection', () => {
    if (this.status === 'end' || this.status === 'wait') return 'released';
    if (!this.manuallyClosing) return 'open';
    // Disconnected between two reconnect attempts: ioredis cancels the retry and holds no socket,
    // but never reaches 'end'.
    if (this.status === 'reconnecting' && !this.reconnectTimeout) return 'released';
    return ended(this, 'end');
  });
  setStatus.apply(this, args);
};

const listen = Server.prototype.listen;
Server.prototype.listen = function (this: Server, ...args: unknown[]) {
  track(this, 'server', () => (this.listening ? 'open' : 'released'));
  return (listen as (...a: unknown[]) => Server).apply(this, args);
};

const spawn = (ChildProcess.prototype as unknown as { spawn: (...args: unknown[]) => unknown }).spawn;
(ChildProcess.prototype as unknown as { spawn: (...args: unknown[]) => unknown }).spawn = function (
  this: ChildProcess,
  ...args: unknown[]
) {
  track(this, 'child process', () => {
    if (this.exitCode !== null || this.signalCode !== null) return 'released';
    return this.killed ? ended(this, 'exit') : 'open';
  });
  return spawn.apply(this, args);
};

function plural(kind: string): string {
  return kind.endsWith('s') ? `${kind}es` : `${kind}s`;
}

/** How long a close already asked for (QUIT sent, signal sent) may take before it counts as a leak. */
const CLOSING_GRACE_MS = 5000;

/**
 * Throws when a resource of `scope` ('file' checks both) is still open, naming each; forgets the
 * released ones. Closes that were asked for but are still under way are waited for, briefly.
 */
export async function checkReleased(scope: LeakScope): Promise<void> {
  const open: Tracked[] = [];
  for (const entry of [...tracked.values()]) {
    if (scope === 'test' && entry.scope !== 'test') continue;
    let state = entry.state();
    if (state instanceof Promise) {
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<'open'>(
        (resolve) => (timer = setTimeout(() => resolve('open'), CLOSING_GRACE_MS)),
      );
      state = await Promise.race([state.then(() => 'released' as const), gaveUp]);
      clearTimeout(timer);
    }
    if (state === 'open') open.push(entry);
    tracked.delete(entry.resource);
  }
  if (open.length === 0) return;
  const groups = new Map<string, string[]>();
  for (const entry of open) {
    const kind = names.get(entry.resource) ?? entry.kind;
    groups.set(kind, [...(groups.get(kind) ?? []), entry.createdAt]);
  }
  const parts = [...groups].map(
    ([kind, sites]) =>
      `${sites.length} ${sites.length === 1 ? kind : plural(kind)} (created at ${sites.join(', ')})`,
  );
  throw new Error(`failed to release: ${parts.join('; ')}`);
}

// Temp folders: fs.mkdtemp in all three forms records where it was called, so a leftover folder is
// named with the line of the test that made it. (Children's and other leftovers are named alone.)
const tempSites = new Map<string, string>();
const realMkdtempSync = fs.mkdtempSync;
const realMkdtemp = fs.mkdtemp;
const realPromisesMkdtemp = fs.promises.mkdtemp;
function recordTemp<T>(path: T, site: string): T {
  if (typeof path === 'string') tempSites.set(path, site);
  return path;
}
fs.mkdtempSync = function (this: unknown, ...args: Parameters<typeof realMkdtempSync>) {
  return recordTemp(realMkdtempSync.apply(this, args), creationSite());
} as typeof fs.mkdtempSync;
fs.mkdtemp = function (this: unknown, ...args: unknown[]) {
  const site = creationSite();
  const callback = args.pop() as (error: Error | null, path?: string) => void;
  return (realMkdtemp as (...a: unknown[]) => void).apply(this, [
    ...args,
    (error: Error | null, path?: string) => callback(error, recordTemp(path, site)),
  ]);
} as typeof fs.mkdtemp;
fs.promises.mkdtemp = async function (this: unknown, ...args: Parameters<typeof realPromisesMkdtemp>) {
  const site = creationSite();
  return recordTemp(await realPromisesMkdtemp.apply(this, args), site);
} as typeof fs.promises.mkdtemp;
// ES modules' named imports of node:fs see the wrapped functions too.
syncBuiltinESMExports();

let fileTempDir: { readonly path: string; readonly previous: string | undefined } | undefined;

/**
 * Points TMPDIR (hence os.tmpdir()) at a new empty folder for this test file, inside the test run's
 * (vitest.config.ts), else the system temp folder; returns its path. checkTempDirEmpty() ends it.
 */
export function useFileTempDir(): string {
  if (fileTempDir !== undefined) return fileTempDir.path;
  const parent = process.env['SHIFT_EXPORT_TESTS_TMPDIR'] ?? tmpdir();
  const path = realMkdtempSync(join(parent, `shift-export-test-${process.pid}-`));
  fileTempDir = { path, previous: process.env['TMPDIR'] };
  process.env['TMPDIR'] = path;
  return path;
}

/**
 * What Node itself keeps in TMPDIR, not a test's leftovers: npm 11 on Node ≥ 22 turns on the module
 * compile cache, `$TMPDIR/node-compile-cache`, in every `npm exec` a test starts. It is removed
 * with the folder all the same.
 */
const NODE_OWN_CACHES: ReadonlySet<string> = new Set(['node-compile-cache']);

/**
 * Throws when the file's TMPDIR is not empty, naming each entry (and where a test made it); removes
 * the folder either way and puts TMPDIR back, so a failing file leaves nothing behind either.
 */
export function checkTempDirEmpty(): void {
  const dir = fileTempDir;
  if (dir === undefined) return;
  fileTempDir = undefined;
  if (dir.previous === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = dir.previous;
  const left = fs
    .readdirSync(dir.path)
    .filter((name) => !NODE_OWN_CACHES.has(name))
    .sort();
  fs.rmSync(dir.path, { recursive: true, force: true });
  const sites = new Map<string, string>();
  for (const [path, site] of [...tempSites]) {
    if (dirname(path) !== dir.path) continue;
    sites.set(basename(path), site);
    tempSites.delete(path);
  }
  if (left.length === 0) return;
  const named = left.map((name) => {
    const site = sites.get(name);
    return site === undefined ? name : `${name} (created at ${site})`;
  });
  throw new Error(
    `left in the temp folder: ${left.length} ${left.length === 1 ? 'entry' : 'entries'}: ${named.join(', ')}`,
  );
}
