import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredFile } from '../../../src/destinations/destination.js';
import { LocalFolderDestination } from '../../../src/destinations/local-folder-destination.js';
import type { GroupStats } from '../../../src/domain/summary.js';
import { ChangeTrackingDestination } from '../../../src/export/row-changes/change-tracking-destination.js';
import { silentLogger, type Logger } from '../../../src/logger.js';
import {
  type Manifest,
  manifestStatistics,
  parseManifest,
  renderManifest,
} from '../../../src/render/manifest.js';
import { capturingLogger, readAll, writeAll } from '../../destinations/export-helpers.js';

const period = { from: '2024-05-01', to: '2024-05-07' };
const CSV_TYPE = 'text/csv; charset=utf-8';
/** More rows than one run of fingerprints holds in memory (128k): some spill before publish. */
const SPILLING_ROWS = 140_000;

let root: string;
let spillDir: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'change-tracking-test-'));
  spillDir = join(root, 'spill');
  await mkdir(spillDir);
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

function manifestOf(exportId: string, shiftsCsv: StoredFile, rows: number): Manifest {
  return {
    export_id: exportId,
    period,
    generated_at: '2024-05-08T06:00:00.000Z',
    tool: { name: 'shift-export', version: '0.1.0' },
    source: { base_url: 'https://wfm.example.com/api' },
    counts: { fetched: rows, exported: rows, rejected: 0, duplicates: 0, outside_window: 0, flagged: 0 },
    statistics: manifestStatistics(overall),
    files: [{ ...shiftsCsv, rows, content_type: CSV_TYPE }],
  };
}

function csvOf(rows: readonly (readonly [id: number, text: string])[]): Buffer {
  return Buffer.from(`shift_id,value\r\n${rows.map(([id, text]) => `${id},${text}\r\n`).join('')}`);
}

function trackingDestination(options: { tempDir?: string; logger?: Logger } = {}): ChangeTrackingDestination {
  return new ChangeTrackingDestination(new LocalFolderDestination({ dir: join(root, 'exports') }), {
    csvDelimiter: ',',
    logger: options.logger ?? silentLogger,
    tempDir: options.tempDir ?? spillDir,
  });
}

/** One export of `rows` as shifts.csv; the manifest as published. */
async function exportRows(
  destination: ChangeTrackingDestination,
  exportId: string,
  rows: readonly (readonly [number, string])[],
): Promise<Manifest> {
  const publication = await destination.begin(period, exportId);
  const sink = publication.openFile('shifts.csv', CSV_TYPE);
  await writeAll(sink.stream, csvOf(rows));
  const stored = await sink.done();
  await publication.publish(renderManifest(manifestOf(exportId, stored, rows.length)));
  const published = destination.publishedManifest(exportId);
  if (published === undefined) throw new Error(`${exportId} was not published`);
  return published;
}

async function rowHashesOf(destination: ChangeTrackingDestination, manifest: Manifest): Promise<Buffer> {
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

describe('change tracking destination', () => {
  it('stores row-hashes.bin and counts what changed since the previous export, leaving no temp file', async () => {
    const destination = trackingDestination();
    const first = await exportRows(destination, 'v1', [
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

    const second = await exportRows(destination, 'v2', [
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
    const destination = trackingDestination();
    const ids = shuffledIds(SPILLING_ROWS);
    expect(new Set(ids).size).toBe(SPILLING_ROWS);
    const shuffled = await exportRows(
      destination,
      'v1',
      ids.map((id) => [id, `row ${id}`]),
    );
    const inOrder = await exportRows(
      destination,
      'v2',
      [...ids].sort((a, b) => a - b).map((id) => [id, `row ${id}`]),
    );
    expect((await rowHashesOf(destination, inOrder)).equals(await rowHashesOf(destination, shuffled))).toBe(
      true,
    );
    expect(inOrder.changes).toEqual({ previous_export_id: 'v1', added: 0, removed: 0, changed: 0 });
    expect(await readdir(spillDir)).toEqual([]);
  });

  it('removes the spilled fingerprints when the export is aborted', async () => {
    const destination = trackingDestination();
    const publication = await destination.begin(period, 'v1');
    const sink = publication.openFile('shifts.csv', CSV_TYPE);
    const rows = Array.from({ length: SPILLING_ROWS }, (_, i) => [i + 1, 'x'] as const);
    await writeAll(sink.stream, csvOf(rows));
    await sink.done();
    expect(await readdir(spillDir)).toHaveLength(1);
    await publication.abort(new Error('stopped'));
    expect(await readdir(spillDir)).toEqual([]);
  });

  it.each([
    ['when the rows fit in one run (it fails at publish)', 1],
    ['when a run spills while shifts.csv is written', SPILLING_ROWS],
  ])(
    'publishes without row-hashes.bin and says so in the manifest when the temp folder cannot be written, %s',
    async (_when, rows) => {
      const { logger, lines } = capturingLogger();
      // A file where the temp folder should be: every spill fails (ENOTDIR), as on a full disk.
      const notAFolder = join(root, 'not-a-folder');
      await writeFile(notAFolder, '');
      const destination = trackingDestination({ tempDir: join(notAFolder, 'tmp'), logger });
      const manifest = await exportRows(
        destination,
        'v1',
        Array.from({ length: rows }, (_, i) => [i + 1, 'x'] as const),
      );
      expect(manifest.files.map((f) => f.name)).toEqual(['shifts.csv']);
      expect(manifest.changes).toBeNull();
      expect(manifest.changes_unavailable).toMatchObject({ reason: 'row_hashes_not_written' });
      expect(manifest.changes_unavailable?.message).toMatch(/temp folder .*not-a-folder.*ENOTDIR/);
      // The file on disk says it too, not only the object handed back.
      const published = parseManifest((await destination.readManifest(period)) ?? '');
      expect(published.changes_unavailable).toEqual(manifest.changes_unavailable);
      const warning = lines().find((l) => l.reason === 'row_hashes_not_written');
      expect(warning).toMatchObject({ level: 40, exportId: 'v1' });
    },
  );

  it('records the previous export but says changes are not counted when this export has no row hashes', async () => {
    await exportRows(trackingDestination(), 'v1', [[1, 'a']]);
    const broken = trackingDestination({ tempDir: join(root, 'missing') });
    const second = await exportRows(broken, 'v2', [[1, 'a']]);
    expect(second.previous?.export_id).toBe('v1');
    expect(second.changes).toBeNull();
    expect(second.changes_unavailable?.reason).toBe('row_hashes_not_written');
  });

  it('says changes are not counted when the previous export has no row-hashes.bin', async () => {
    await exportRows(trackingDestination({ tempDir: join(root, 'missing') }), 'v1', [[1, 'a']]);
    const second = await exportRows(trackingDestination(), 'v2', [[1, 'a']]);
    expect(second.files.map((f) => f.name)).toEqual(['shifts.csv', 'row-hashes.bin']);
    expect(second.previous?.export_id).toBe('v1');
    expect(second.changes).toBeNull();
    expect(second.changes_unavailable).toEqual({
      reason: 'previous_row_hashes_missing',
      message: expect.stringContaining('v1 has no row-hashes.bin') as string,
    });
  });

  it('says changes are not counted when the previous row-hashes.bin is damaged', async () => {
    const destination = trackingDestination();
    await exportRows(destination, 'v1', [[1, 'a']]);
    const folder = await realpath(join(root, 'exports', `${period.from}_${period.to}`));
    await writeFile(join(folder, 'row-hashes.bin'), 'not row hashes');
    const second = await exportRows(destination, 'v2', [[1, 'a']]);
    expect(second.changes).toBeNull();
    expect(second.changes_unavailable?.reason).toBe('previous_row_hashes_unreadable');
  });

  it('says changes are not counted when the previous manifest cannot be read', async () => {
    const destination = trackingDestination();
    await exportRows(destination, 'v1', [[1, 'a']]);
    const folder = await realpath(join(root, 'exports', `${period.from}_${period.to}`));
    await writeFile(join(folder, 'manifest.json'), '{"export_id": ');
    const second = await exportRows(destination, 'v2', [[1, 'a']]);
    expect(second.previous).toBeUndefined();
    expect(second.changes).toBeNull();
    expect(second.changes_unavailable?.reason).toBe('previous_manifest_unreadable');
    expect(second.files.map((f) => f.name)).toContain('row-hashes.bin');
  });
});
