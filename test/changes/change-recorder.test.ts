// The change recorder against a real local folder destination: row-hashes.bin stored in the
// publication, changes counted against the previous export read back through the destination, and
// every way counting degrades (temp folder, previous manifest or file damaged, older format).

import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeRecorder } from '../../src/changes/change-recorder.js';
import type { StoredFile } from '../../src/destinations/destination.js';
import { LocalFolderDestination } from '../../src/destinations/local-folder-destination.js';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import type { GroupStats } from '../../src/domain/summary.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import {
  type Manifest,
  manifestStatistics,
  parseManifest,
  renderManifest,
} from '../../src/render/manifest.js';
import { capturingLogger, readAll, writeAll } from '../destinations/export-helpers.js';
import { syntheticShiftRecords } from '../render/csv/synthetic-shift-records.js';

const period = { from: '2024-05-01', to: '2024-05-07' };
const CSV_TYPE = 'text/csv; charset=utf-8';
/** More rows than one run of fingerprints holds in memory (128k): some spill before publish. */
const SPILLING_ROWS = 140_000;

let root: string;
let spillDir: string;
let destination: LocalFolderDestination;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'change-recorder-test-'));
  spillDir = join(root, 'spill');
  await mkdir(spillDir);
  destination = new LocalFolderDestination({ dir: join(root, 'exports') });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const overall: GroupStats = {
  shifts: 0,
  durationSeconds: 0,
  startChecked: 0,
  startMatched: 0,
  finishChecked: 0,
  finishMatched: 0,
  bothChecked: 0,
  bothMatched: 0,
  noLocation: 0,
  startDistanceMedian: null,
  startDistanceP90: null,
  finishDistanceMedian: null,
  finishDistanceP90: null,
  autoFinished: 0,
};

function manifestOf(exportId: string, files: Manifest['files'], rows: number): Manifest {
  return {
    export_id: exportId,
    period,
    generated_at: '2024-05-08T06:00:00.000Z',
    tool: { name: 'shift-export', version: '0.1.0' },
    source: { base_url: 'https://wfm.example.com/api' },
    counts: { fetched: rows, exported: rows, rejected: 0, duplicates: 0, outside_window: 0, flagged: 0 },
    statistics: manifestStatistics(overall),
    files,
  };
}

const template = syntheticShiftRecords(1)[0] as ShiftRecord;

/** A record of shift `id` whose comment is `comment`: rows that differ only there. */
function recordOf(id: number, comment: string): ShiftRecord {
  return { ...template, shift: { ...template.shift, id, comment } };
}

function recorderOf(options: { tempDir?: string; logger?: Logger } = {}): ChangeRecorder {
  return new ChangeRecorder({
    logger: options.logger ?? silentLogger,
    tempDir: options.tempDir ?? spillDir,
  });
}

/** One export of `rows` as runExport makes it (a file, then the changes, the manifest last). */
async function exportRows(
  exportId: string,
  rows: readonly (readonly [number, string])[],
  recorder = recorderOf(),
): Promise<Manifest> {
  const publication = await destination.begin(period, exportId);
  try {
    const sink = publication.openFile('shifts.txt', CSV_TYPE);
    for (const [id, comment] of rows) recorder.record(recordOf(id, comment));
    await writeAll(sink.stream, Buffer.from(`${rows.length} rows\n`));
    const stored: StoredFile = await sink.done();
    const { file, ...changes } = await recorder.conclude(publication, destination, period);
    const files = [{ ...stored, rows: rows.length, content_type: CSV_TYPE }, ...(file ? [file] : [])];
    const manifest: Manifest = { ...manifestOf(exportId, files, rows.length), ...changes };
    await publication.publish(renderManifest(manifest));
    return manifest;
  } finally {
    await recorder.dispose();
  }
}

async function rowHashesOf(manifest: Manifest): Promise<Buffer> {
  const entry = manifest.files.find((f) => f.name === 'row-hashes.bin');
  if (entry === undefined) throw new Error('no row-hashes.bin');
  return readAll(await destination.openPublishedFile(period, entry.path));
}

/** ids 1..n in a fixed shuffled order (a multiplicative permutation). */
function shuffledIds(n: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) ids.push(((i * 40_503) % n) + 1);
  return ids;
}

async function publishedFolder(): Promise<string> {
  return realpath(join(root, 'exports', `${period.from}_${period.to}`));
}

describe('change recorder', () => {
  it('stores row-hashes.bin and counts what changed since the previous export, leaving no temp file', async () => {
    const first = await exportRows('v1', [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [5, 'e'],
    ]);
    expect(first.files.find((f) => f.name === 'row-hashes.bin')).toMatchObject({
      rows: 4,
      bytes: 8 + 4 * 16,
    });
    expect(first.changes).toBeUndefined();

    const second = await exportRows('v2', [
      [2, 'b'],
      [3, 'C'],
      [4, 'd'],
      [5, 'e'],
      [6, 'f'],
    ]);
    expect(second.previous?.export_id).toBe('v1');
    expect(second.changes).toEqual({ previous_export_id: 'v1', added: 2, removed: 1, changed: 1 });
    expect(await readdir(spillDir)).toEqual([]);
  });

  it('stores the same row-hashes.bin whether rows arrive in id order or not', async () => {
    const ids = shuffledIds(SPILLING_ROWS);
    expect(new Set(ids).size).toBe(SPILLING_ROWS);
    const shuffled = await exportRows(
      'v1',
      ids.map((id) => [id, `row ${id}`]),
    );
    const inOrder = await exportRows(
      'v2',
      [...ids].sort((a, b) => a - b).map((id) => [id, `row ${id}`]),
    );
    expect((await rowHashesOf(inOrder)).equals(await rowHashesOf(shuffled))).toBe(true);
    expect(inOrder.changes).toEqual({ previous_export_id: 'v1', added: 0, removed: 0, changed: 0 });
    expect(await readdir(spillDir)).toEqual([]);
  });

  it('removes the spilled fingerprints when disposed without concluding (an aborted export)', async () => {
    const recorder = recorderOf();
    for (let id = 1; id <= SPILLING_ROWS; id++) recorder.record(recordOf(id, 'x'));
    expect(await readdir(spillDir)).toHaveLength(1);
    await recorder.dispose();
    expect(await readdir(spillDir)).toEqual([]);
  });

  it.each([
    ['when the rows fit in one run (it fails before publishing)', 1],
    ['when a run spills while rows are recorded', SPILLING_ROWS],
  ])(
    'publishes without row-hashes.bin and says so in the manifest when the temp folder cannot be written, %s',
    async (_when, rows) => {
      const { logger, lines } = capturingLogger();
      // A file where the temp folder should be: every spill fails (ENOTDIR), as on a full disk.
      const notAFolder = join(root, 'not-a-folder');
      await writeFile(notAFolder, '');
      const recorder = recorderOf({ tempDir: join(notAFolder, 'tmp'), logger });
      const manifest = await exportRows(
        'v1',
        Array.from({ length: rows }, (_, i) => [i + 1, 'x'] as const),
        recorder,
      );
      expect(manifest.files.map((f) => f.name)).toEqual(['shifts.txt']);
      expect(manifest.changes).toBeNull();
      expect(manifest.changes_unavailable).toMatchObject({ reason: 'row_hashes_not_written' });
      expect(manifest.changes_unavailable?.message).toMatch(/temp folder .*not-a-folder.*ENOTDIR/);
      const published = parseManifest((await destination.readManifest(period)) ?? '');
      expect(published.changes_unavailable).toEqual(manifest.changes_unavailable);
      const warning = lines().find((l) => l.reason === 'row_hashes_not_written');
      expect(warning).toMatchObject({ level: 40 });
    },
  );

  it('records the previous export but says changes are not counted when this export has no row hashes', async () => {
    await exportRows('v1', [[1, 'a']]);
    const second = await exportRows('v2', [[1, 'a']], recorderOf({ tempDir: join(root, 'missing') }));
    expect(second.previous?.export_id).toBe('v1');
    expect(second.changes).toBeNull();
    expect(second.changes_unavailable?.reason).toBe('row_hashes_not_written');
  });

  it('says changes are not counted when the previous export has no row-hashes.bin', async () => {
    await exportRows('v1', [[1, 'a']], recorderOf({ tempDir: join(root, 'missing') }));
    const second = await exportRows('v2', [[1, 'a']]);
    expect(second.files.map((f) => f.name)).toEqual(['shifts.txt', 'row-hashes.bin']);
    expect(second.previous?.export_id).toBe('v1');
    expect(second.changes).toBeNull();
    expect(second.changes_unavailable).toEqual({
      reason: 'previous_row_hashes_missing',
      message: expect.stringContaining('v1 has no row-hashes.bin') as string,
    });
  });

  it('says changes are not counted, and why, when the previous row-hashes.bin is of the older format', async () => {
    await exportRows('v1', [[1, 'a']]);
    const folder = await publishedFolder();
    // What the release before wrote: the same layout under the header SXRH0001, its manifest
    // pointing at it (its hash included, as the manifest is checked against the file).
    const older = Buffer.concat([Buffer.from('SXRH0001', 'latin1'), Buffer.alloc(16)]);
    await writeFile(join(folder, 'row-hashes.bin'), older);
    const manifest = parseManifest((await destination.readManifest(period)) ?? '');
    const files = manifest.files.map((f) =>
      f.name === 'row-hashes.bin'
        ? { ...f, bytes: older.length, sha256: createHash('sha256').update(older).digest('hex') }
        : f,
    );
    await writeFile(join(folder, 'manifest.json'), renderManifest({ ...manifest, files }));
    const { logger, lines } = capturingLogger();
    const second = await exportRows('v2', [[1, 'a']], recorderOf({ logger }));
    expect(second.previous?.export_id).toBe('v1');
    expect(second.changes).toBeNull();
    expect(second.changes_unavailable).toEqual({
      reason: 'previous_row_hashes_format',
      message: expect.stringMatching(/v1 .*older format SXRH0001/) as string,
    });
    expect(second.files.map((f) => f.name)).toContain('row-hashes.bin');
    expect(lines().find((l) => l.reason === 'previous_row_hashes_format')).toMatchObject({ level: 40 });
    // The next export counts against this one again.
    const third = await exportRows('v3', [[1, 'b']]);
    expect(third.changes).toEqual({ previous_export_id: 'v2', added: 0, removed: 0, changed: 1 });
  });

  it('says changes are not counted when the previous row-hashes.bin is damaged', async () => {
    await exportRows('v1', [[1, 'a']]);
    const folder = await publishedFolder();
    await writeFile(join(folder, 'row-hashes.bin'), 'not row hashes');
    const second = await exportRows('v2', [[1, 'a']]);
    expect(second.changes).toBeNull();
    expect(second.changes_unavailable?.reason).toBe('previous_row_hashes_unreadable');
  });

  it('says changes are not counted when the previous manifest cannot be read', async () => {
    await exportRows('v1', [[1, 'a']]);
    const folder = await publishedFolder();
    await writeFile(join(folder, 'manifest.json'), '{"export_id": ');
    const second = await exportRows('v2', [[1, 'a']]);
    expect(second.previous).toBeUndefined();
    expect(second.changes).toBeNull();
    expect(second.changes_unavailable?.reason).toBe('previous_manifest_unreadable');
    expect(second.files.map((f) => f.name)).toContain('row-hashes.bin');
  });
});
