// A full temp folder: the row fingerprints behind row-hashes.bin spill to TMPDIR, and a
// disk that is full there must not fail the export nor degrade it silently. `run` and a `worker`
// child get a TMPDIR that is a 64 KiB tmpfs (a real ENOSPC; where mounting is not allowed, a path
// under a regular file, ENOTDIR): the export is published with every row, its manifest says
// `"changes": null` with the reason, `run`'s summary, the job's result and a warning say it too,
// the next export says the previous one has no row hashes, and the temp folder is left empty.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { enqueueExport } from '../../src/queue/enqueue-export.js';
import { exportJobData } from '../../src/queue/export-job-data.js';
import { readExportJobResult } from '../../src/queue/export-job-result.js';
import { waitForJob } from '../../src/queue/wait-for-job.js';
import { parseManifest, type Manifest } from '../../src/render/manifest.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { publishedOutcome, runCliExport, type CliExport } from './support/cli-export.js';
import { checkLocalExport, publishedFolder } from './support/exported-ids.js';
import { evidenceFolder } from './support/evidence.js';
import { expectedIds } from './support/expected-rows.js';
import { openQueueWorld } from './support/queue-world.js';
import { scenario } from './support/scenario.js';
import { REPORT_ROWS, sourceShape, startScenarioSandbox } from './support/scenario-sandbox.js';

const GROUP = 'disk';
const FROM = '2024-03-26';
const TO = '2024-03-30';
const SHAPE = sourceShape(REPORT_ROWS);

interface FullTempDir {
  readonly path: string;
  /** How it is full, for the table. */
  readonly how: string;
  dispose(): void;
}

/** A 64 KiB tmpfs when this process may mount one (root), else a folder that cannot exist. */
function fullTempDir(): FullTempDir {
  const base = mkdtempSync(join(tmpdir(), 'tmpdir-full-'));
  const mountPoint = join(base, 'tmpfs');
  mkdirSync(mountPoint);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=1777', 'tmpfs', mountPoint], {
      stdio: 'ignore',
    });
    return {
      path: mountPoint,
      how: '64 KiB tmpfs, ENOSPC',
      dispose() {
        execFileSync('umount', [mountPoint], { stdio: 'ignore' });
        rmSync(base, { recursive: true, force: true });
      },
    };
  } catch {
    const file = join(base, 'a-file');
    writeFileSync(file, '');
    return {
      path: join(file, 'tmp'),
      how: 'TMPDIR under a regular file, ENOTDIR (no tmpfs mount allowed here)',
      dispose: () => rmSync(base, { recursive: true, force: true }),
    };
  }
}

let redis: RedisServer;
let sandbox: RunningSandbox;
let expected: Set<number>;
let full: FullTempDir;

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), startScenarioSandbox(SHAPE)]);
  expected = expectedIds(SHAPE, FROM, TO);
  full = fullTempDir();
});

afterAll(async () => {
  full?.dispose();
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

function manifestOf(dest: string): Manifest {
  const folder = publishedFolder(dest, FROM, TO);
  if (folder === undefined) throw new Error(`nothing published in ${dest}`);
  return parseManifest(readFileSync(join(folder, 'manifest.json'), 'utf8'));
}

function reasonOf(m: Pick<Manifest, 'changes' | 'changes_unavailable'>): string {
  if (m.changes === undefined) return 'changes absent';
  if (m.changes === null) return `changes: null (${m.changes_unavailable?.reason ?? 'NO REASON'})`;
  return 'changes counted';
}

/** Throws unless the temp folder holds nothing: the fingerprints' files are removed however it ends. */
function assertTempDirEmpty(): void {
  let left: string[] = [];
  try {
    left = readdirSync(full.path);
  } catch {
    return; // the ENOTDIR stand-in: nothing can be there
  }
  if (left.length > 0) throw new Error(`temp files left behind: ${left.join(', ')}`);
}

function assertWarned(run: CliExport, reason: string): void {
  const warned = run.run.stderr
    .split('\n')
    .some((line) => line.includes('"level":40') && line.includes(`"reason":"${reason}"`));
  if (!warned) throw new Error(`no warning with reason ${reason} on stderr`);
}

describe('a full temp folder', () => {
  it('publishes every row, and the manifest, the summary and a warning say changes are not counted', () =>
    scenario(GROUP, 'TMPDIR full during `run`', async () => {
      const dest = evidenceFolder('tmpdir-full-run');
      const options = { baseUrl: sandbox.url, from: FROM, to: TO, dest };
      const first = await runCliExport('tmpdir-full-before', options);
      if (first.run.code !== 0) throw new Error(`the export before failed: ${first.run.stderr}`);
      const before = manifestOf(dest);

      const degraded = await runCliExport('tmpdir-full', { ...options, env: { TMPDIR: full.path } });
      const outcome = await publishedOutcome(degraded, FROM, TO, expected);
      const m = manifestOf(dest);
      if (reasonOf(m) !== 'changes: null (row_hashes_not_written)')
        throw new Error(`manifest: ${reasonOf(m)}`);
      if (m.files.some((f) => f.name === 'row-hashes.bin')) throw new Error('row-hashes.bin is listed');
      if (m.previous?.export_id !== before.export_id) throw new Error('the replaced export is not recorded');
      if (!/^ {2}changes +not counted \(row_hashes_not_written\)/m.test(degraded.run.stdout))
        throw new Error(`run's summary does not say it: ${degraded.run.stdout}`);
      assertWarned(degraded, 'row_hashes_not_written');
      assertTempDirEmpty();

      const after = await runCliExport('tmpdir-full-after', options);
      if (after.run.code !== 0) throw new Error(`the export after failed: ${after.run.stderr}`);
      const next = manifestOf(dest);
      if (reasonOf(next) !== 'changes: null (previous_row_hashes_missing)')
        throw new Error(`next manifest: ${reasonOf(next)}`);
      return {
        ...outcome,
        outcome: `${full.how}: published; manifest, summary and log: ${reasonOf(m)}; next export: ${reasonOf(next)}`,
      };
    }));

  it('completes the job, whose result says changes are not counted', () =>
    scenario(GROUP, 'TMPDIR full on a worker', async () => {
      const world = await openQueueWorld('tmpdir-full-worker', redis.url, sandbox);
      try {
        const events = await world.events();
        world.worker({ TMPDIR: full.path });
        const { jobId } = await enqueueExport(world.harness.producer.queue, exportJobData(FROM, TO, ['csv']));
        const done = await waitForJob(world.harness.producer.queue, events, jobId);
        if (done.state !== 'completed') throw new Error(`job failed: ${done.reason}`);
        const result = readExportJobResult(done.returnValue);
        if (result === undefined) throw new Error('the job result is not an export result');
        if (reasonOf(result) !== 'changes: null (row_hashes_not_written)')
          throw new Error(`job result: ${reasonOf(result)}`);
        if (reasonOf(manifestOf(world.dest)) !== reasonOf(result))
          throw new Error('the manifest and the job result disagree');
        assertTempDirEmpty();
        const check = await checkLocalExport(world.dest, FROM, TO, expected);
        return {
          outcome: `job completed; its result and manifest say ${reasonOf(result)}`,
          expected: expected.size,
          ...check,
        };
      } finally {
        await world.finish();
      }
    }));
});
