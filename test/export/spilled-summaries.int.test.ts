// An export whose every row is its own user, with EXPORT_MEMORY_MB far below what its user groups
// take: the statistics spill to the temp folder and come back exact — the summary files are the
// same bytes as with room to spare — and the temp folder is empty afterwards. With the statistics on
// a thread of their own (EXPORT_STATISTICS_THREAD), the spilled tables come back from that thread as
// files, read on the export's thread: the same bytes again, and the temp folder empty; when that
// thread dies after it spilled, the export fails retryably, its temp folder is empty all the same,
// and the files the thread had open are closed (Node closes a worker's descriptors when it ends).

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { runConfiguredExport } from '../support/run-configured-export.js';
import { endThreadWhenSent } from '../support/thread-ender.js';

const PERIOD = { from: '2024-03-10', to: '2024-03-31' };
const SUMMARIES = ['summary_by_user.csv', 'summary_by_shop.csv', 'summary_by_region.csv'];

let sandbox: RunningSandbox;
let root: string;
let savedTmpdir: string | undefined;

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: 8_000, userPerRow: true });
  root = mkdtempSync(join(tmpdir(), 'spilled-summaries-'));
  savedTmpdir = process.env['TMPDIR'];
});

afterAll(async () => {
  if (savedTmpdir === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = savedTmpdir;
  await sandbox?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

async function exportWith(
  memoryMb: string,
  name: string,
  more: Readonly<Record<string, string>> = {},
): Promise<{ dir: string; temp: string }> {
  const dest = join(root, name);
  const temp = join(root, `${name}-tmp`);
  for (const dir of [dest, temp]) mkdirSync(dir);
  const env = {
    EXPORT_DEST: dest,
    EXPORT_MEMORY_MB: memoryMb,
    WFM_BASE_URL: sandbox.url,
    WFM_TOKEN: SANDBOX_READER_TOKEN,
    ...more,
  };
  // os.tmpdir() reads TMPDIR when it is called: the export's temp files go here.
  process.env['TMPDIR'] = temp;
  const { result } = await runConfiguredExport(env, PERIOD, ['csv', 'xlsx']);
  return { dir: result.location, temp };
}

// ~6,000 users of ~350 estimated bytes each: about 2 MB of groups against a budget of 1 MB.
describe('an export past EXPORT_MEMORY_MB', () => {
  it('writes the same summaries as one that fits, and leaves its temp folder empty', async () => {
    const roomy = await exportWith('1000', 'roomy');
    const tight = await exportWith('1', 'tight');
    for (const file of SUMMARIES)
      expect(readFileSync(join(tight.dir, file)), file).toEqual(readFileSync(join(roomy.dir, file)));
    const users = readFileSync(join(tight.dir, 'summary_by_user.csv'), 'utf8').trim().split('\n');
    expect(users.length).toBeGreaterThan(4_000);
    expect(readdirSync(tight.temp)).toEqual([]);
  });

  it('writes the same summaries with its statistics spilled on a thread of their own, and leaves its temp folder empty', async () => {
    const roomy = await exportWith('1000', 'roomy-here');
    const threaded = { EXPORT_THREADS: '2', EXPORT_STATISTICS_THREAD: 'true' };
    const tight = await exportWith('1', 'tight-thread', threaded);
    for (const file of SUMMARIES)
      expect(readFileSync(join(tight.dir, file)), file).toEqual(readFileSync(join(roomy.dir, file)));
    expect(readdirSync(tight.temp)).toEqual([]);
  });

  it('fails retryably when its statistics thread dies after spilling, and leaves its temp folder empty and none of its files open', async () => {
    const dest = join(root, 'dead-thread');
    const temp = join(root, 'dead-thread-tmp');
    for (const dir of [dest, temp]) mkdirSync(dir);
    // The statistics thread is the one sent batches of rows: it ends at the first batch sent once
    // its folder (the only one in the temp folder) holds a run.
    const spilled = (): boolean =>
      readdirSync(temp).some((folder) => readdirSync(join(temp, folder)).length > 0);
    let openWhenEnded = 0;
    const ender = endThreadWhenSent((kind) => {
      if (kind !== 'rows' || !spilled()) return false;
      openWhenEnded = descriptorsUnder(temp);
      return true;
    });
    process.env['TMPDIR'] = temp;
    try {
      const env = {
        EXPORT_DEST: dest,
        EXPORT_MEMORY_MB: '1',
        EXPORT_THREADS: '2',
        EXPORT_STATISTICS_THREAD: 'true',
        WFM_BASE_URL: sandbox.url,
        WFM_TOKEN: SANDBOX_READER_TOKEN,
      };
      await expect(runConfiguredExport(env, PERIOD, ['csv'])).rejects.toMatchObject({
        code: 'EXPORT_THREAD_FAILED',
        retryable: true,
      });
    } finally {
      ender.stop();
    }
    expect(ender.ended).toBe(1);
    expect(readdirSync(temp)).toEqual([]);
    expect(readdirSync(dest)).toEqual([]);
    // The thread held its runs' file open when it ended; nothing of this process holds it now.
    expect(openWhenEnded).toBeGreaterThan(0);
    expect(descriptorsUnder(temp)).toBe(0);
  });
});

/** This process's open descriptors of files under `folder`, removed ones too (Linux's /proc). */
function descriptorsUnder(folder: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${folder}/`);
    } catch {
      // Closed between the listing and the look.
      return false;
    }
  }).length;
}
