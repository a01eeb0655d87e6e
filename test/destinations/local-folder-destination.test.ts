import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTENT_TYPES } from '../../src/destinations/content-headers.js';
import type { StoredFile } from '../../src/destinations/destination.js';
import { LocalFolderDestination } from '../../src/destinations/local-folder-destination.js';
import type { Period } from '../../src/domain/period.js';
import { ShiftExportError } from '../../src/errors.js';
import { readAll, runExport, sha256, testBytes, writeAll } from './export-helpers.js';

const period: Period = { from: '2024-05-01', to: '2024-05-07' };
const key = '2024-05-01_2024-05-07';

let root: string;
let dir: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'shift-export-dest-'));
  dir = join(root, 'exports');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<ShiftExportError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ShiftExportError))
    throw new Error(`expected a ShiftExportError, got ${String(error)}`);
  return error;
}

async function entries(): Promise<string[]> {
  return (await readdir(dir)).sort();
}

const files = { 'shifts.csv': testBytes(300_000, 1), 'summary_by_shop.csv': testBytes(5000, 2) };

describe('LocalFolderDestination', () => {
  it('publishes the files and manifest.json at <dest>/<from>_<to>, a link to a hidden version folder', async () => {
    const dest = new LocalFolderDestination({ dir });
    const run = await runExport(dest, period, 'v1', files);

    expect(await entries()).toEqual([`.${key}.v1`, key]);
    expect(await readlink(join(dir, key))).toBe(`.${key}.v1`);
    expect((await readdir(join(dir, key))).sort()).toEqual([
      '.shift-export',
      'manifest.json',
      'shifts.csv',
      'summary_by_shop.csv',
    ]);
    expect(JSON.parse(await readFile(join(dir, key, '.shift-export'), 'utf8'))).toEqual({
      written_by: 'shift-export',
      period: key,
      export_id: 'v1',
      host: hostname(),
      pid: process.pid,
      process_started_at: expect.any(Number),
    });
    expect(run.published).toEqual({
      location: join(dir, key),
      manifestLocation: join(dir, key, 'manifest.json'),
    });
    for (const file of run.stored) {
      const bytes = await readFile(join(dir, key, file.path));
      expect(file.path).toBe(file.name);
      expect(bytes.length).toBe(file.bytes);
      expect(sha256(bytes)).toBe(file.sha256);
      expect(bytes.equals(files[file.name as keyof typeof files])).toBe(true);
      expect((await readAll(await dest.openPublishedFile(period, file.path))).equals(bytes)).toBe(true);
    }
    expect(await readFile(join(dir, key, 'manifest.json'), 'utf8')).toBe(run.manifestJson);
    expect(await dest.readManifest(period)).toBe(run.manifestJson);
  });

  it('shows nothing of an export until publish()', async () => {
    const dest = new LocalFolderDestination({ dir });
    const publication = await dest.begin(period, 'v1');
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    await writeAll(sink.stream, files['shifts.csv']);
    const stored = await sink.done();
    await expect(lstat(join(dir, key))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await dest.readManifest(period)).toBeUndefined();
    await publication.publish(JSON.stringify({ files: [stored] }));
    expect(await dest.readManifest(period)).toBe(JSON.stringify({ files: [stored] }));
  });

  it('replaces an earlier export of the period: the old files until the swap, the new ones after', async () => {
    const dest = new LocalFolderDestination({ dir });
    await runExport(dest, period, 'v1', files);

    const publication = await dest.begin(period, 'v2');
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    await writeAll(sink.stream, testBytes(1000, 9));
    const stored = await sink.done();
    expect((await readFile(join(dir, key, 'shifts.csv'))).equals(files['shifts.csv'])).toBe(true);
    expect(await readdir(join(dir, key))).toContain('summary_by_shop.csv');

    await publication.publish(JSON.stringify({ files: [stored] }));
    expect((await readFile(join(dir, key, 'shifts.csv'))).equals(testBytes(1000, 9))).toBe(true);
    expect(await readdir(join(dir, key))).not.toContain('summary_by_shop.csv');
    expect(await entries()).toEqual([`.${key}.v2`, key]);
  });

  it('never lets a reader find the export missing or half-written while it is replaced', async () => {
    const dest = new LocalFolderDestination({ dir });
    await runExport(dest, period, 'v0', { 'shifts.csv': testBytes(20_000, 0) });
    let publishing = true;
    let reads = 0;
    const reader = (async () => {
      while (publishing) {
        const manifest = JSON.parse(await readFile(join(dir, key, 'manifest.json'), 'utf8')) as {
          files: StoredFile[];
        };
        expect(manifest.files).toHaveLength(1);
        reads += 1;
      }
    })();
    reader.catch(() => undefined); // awaited below; a failure must not surface as unhandled first
    try {
      for (let i = 1; i <= 15; i++)
        await runExport(dest, period, `v${i}`, { 'shifts.csv': testBytes(20_000, i) });
    } finally {
      publishing = false;
    }
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(await entries()).toEqual([`.${key}.v15`, key]);
  }, 30_000);

  it('leaves nothing behind on abort(), and the earlier export as it was', async () => {
    const dest = new LocalFolderDestination({ dir });
    const first = await runExport(dest, period, 'v1', files);
    const publication = await dest.begin(period, 'v2');
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    sink.stream.write(testBytes(100_000, 3));
    await publication.abort(new Error('upstream failed'));

    expect((await rejection(sink.done())).code).toBe('ABORTED');
    expect(await entries()).toEqual([`.${key}.v1`, key]);
    expect(await dest.readManifest(period)).toBe(first.manifestJson);
    expect((await readFile(join(dir, key, 'shifts.csv'))).equals(files['shifts.csv'])).toBe(true);
    expect((await rejection(publication.publish('{}'))).code).toBe('ABORTED');
  });

  it('stops the files and removes the attempt when the AbortSignal fires', async () => {
    const dest = new LocalFolderDestination({ dir });
    const controller = new AbortController();
    const publication = await dest.begin(period, 'v1', controller.signal);
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    sink.stream.write(testBytes(1000, 3));
    controller.abort();
    expect((await rejection(sink.done())).code).toBe('ABORTED');
    await publication.abort();
    expect(await entries()).toEqual([]);
  });

  it('fails publish() and removes the attempt when a file could not be written', async () => {
    const dest = new LocalFolderDestination({ dir });
    const publication = await dest.begin(period, 'v1');
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    sink.stream.end(testBytes(10, 1));
    await sink.done();
    const broken = publication.openFile('shifts.xlsx', CONTENT_TYPES.xlsx);
    broken.stream.destroy(new Error('disk on fire'));
    const error = await rejection(publication.publish('{}'));
    expect(error.code).toBe('DEST_LOCAL');
    expect(error.message).toContain('disk on fire');
    expect(await entries()).toEqual([]);
  });

  it('stores an empty file, and ignores abort() after publish()', async () => {
    const dest = new LocalFolderDestination({ dir });
    const publication = await dest.begin(period, 'v1');
    const sink = publication.openFile('rejected.csv', CONTENT_TYPES.csv);
    sink.stream.end();
    const stored = await sink.done();
    expect(stored).toEqual({
      name: 'rejected.csv',
      path: 'rejected.csv',
      bytes: 0,
      sha256: sha256(Buffer.alloc(0)),
    });
    await publication.publish(JSON.stringify({ files: [stored] }));
    await publication.abort(new Error('too late'));
    expect((await readFile(join(dir, key, 'rejected.csv'))).length).toBe(0);
    expect(await entries()).toEqual([`.${key}.v1`, key]);
  });

  it('refuses publish() before every file has ended', async () => {
    const dest = new LocalFolderDestination({ dir });
    const publication = await dest.begin(period, 'v1');
    publication.openFile('shifts.csv', CONTENT_TYPES.csv).stream.write('half');
    const error = await rejection(publication.publish('{}'));
    expect(error.code).toBe('DEST_INVALID');
    expect(error.message).toContain('shifts.csv');
    expect(await entries()).toEqual([]);
  });

  it('stores a file in folders of its own (a split export) and publishes it with the rest', async () => {
    const dest = new LocalFolderDestination({ dir });
    const publication = await dest.begin(period, 'v1');
    const sink = publication.openFile('divisions/12/shifts.csv', CONTENT_TYPES.csv);
    sink.stream.end('id\n1\n');
    const stored = await sink.done();
    expect(stored).toMatchObject({ name: 'shifts.csv', path: 'divisions/12/shifts.csv', bytes: 5 });
    await publication.publish(JSON.stringify({ files: [stored] }));
    expect(await readFile(join(dir, key, 'divisions', '12', 'shifts.csv'), 'utf8')).toBe('id\n1\n');
    expect(await readAll(await dest.openPublishedFile(period, 'divisions/12/shifts.csv'))).toEqual(
      Buffer.from('id\n1\n'),
    );
  });

  it('refuses a manifest that is not JSON, file names that are not plain, and reused names', async () => {
    const dest = new LocalFolderDestination({ dir });
    const publication = await dest.begin(period, 'v1');
    for (const name of [
      '../x.csv',
      'a/../b.csv',
      'a/b/c/d.csv',
      '.hidden',
      'manifest.json',
      '',
      'tab\there.csv',
    ]) {
      expect(() => publication.openFile(name, CONTENT_TYPES.csv)).toThrow(
        expect.objectContaining({ code: 'DEST_INVALID' }),
      );
    }
    publication.openFile('shifts.csv', CONTENT_TYPES.csv).stream.end('x');
    expect(() => publication.openFile('shifts.csv', CONTENT_TYPES.csv)).toThrow(/already opened/);
    expect((await rejection(publication.publish('{"half": '))).code).toBe('DEST_INVALID');
    expect((await rejection(dest.begin(period, '../v2'))).code).toBe('DEST_INVALID');
    expect((await rejection(dest.begin(period, 'v.2'))).code).toBe('DEST_INVALID');
  });

  it('refuses paths that leave the export and reports missing files', async () => {
    const dest = new LocalFolderDestination({ dir });
    await runExport(dest, period, 'v1', files);
    await writeFile(join(root, 'secret.txt'), 'secret');
    for (const path of ['../secret.txt', '../../secret.txt', '/etc/passwd', 'a/../../secret.txt', '.', '']) {
      expect((await rejection(dest.openPublishedFile(period, path))).code).toBe('DEST_INVALID');
    }
    expect((await rejection(dest.openPublishedFile(period, 'nope.csv'))).code).toBe('DEST_NOT_FOUND');
    expect(
      (await rejection(dest.openPublishedFile({ from: '2023-01-01', to: '2023-01-01' }, 'shifts.csv'))).code,
    ).toBe('DEST_NOT_FOUND');
    expect(await dest.readManifest({ from: '2023-01-01', to: '2023-01-01' })).toBeUndefined();
  });

  it('check() creates a missing folder and proves it writable', async () => {
    const dest = new LocalFolderDestination({ dir: join(dir, 'deeper') });
    await dest.check();
    expect(await readdir(join(dir, 'deeper'))).toEqual([]);
  });

  it('check() and begin() fail with a clear, non-retryable DEST_LOCAL error when the folder cannot be written', async () => {
    await writeFile(join(root, 'a-file'), 'x');
    const onFile = new LocalFolderDestination({ dir: join(root, 'a-file') });
    const error = await rejection(onFile.check());
    expect(error.code).toBe('DEST_LOCAL');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('is not a folder');

    const underFile = new LocalFolderDestination({ dir: join(root, 'a-file', 'exports') });
    const under = await rejection(underFile.check());
    expect(under.code).toBe('DEST_LOCAL');
    expect(under.message).toMatch(/ENOTDIR|EEXIST/);
    expect((await rejection(underFile.begin(period, 'v1'))).code).toBe('DEST_LOCAL');
  });

  it.skipIf(process.getuid?.() === 0)('check() reports permission denied on a read-only folder', async () => {
    await mkdir(dir, { mode: 0o555 });
    const error = await rejection(new LocalFolderDestination({ dir }).check());
    expect(error.code).toBe('DEST_LOCAL');
    expect(error.message).toContain('EACCES');
  });

  it('removes leftovers of crashed attempts once they are older than staleVersionAgeMs', async () => {
    // Attempts that crashed: begun, never published nor aborted.
    await new LocalFolderDestination({ dir }).begin(period, 'crashed');
    await new LocalFolderDestination({ dir }).begin({ from: '2024-06-01', to: '2024-06-07' }, 'other');
    await runExport(new LocalFolderDestination({ dir }), period, 'v1', files);
    expect(await entries()).toContain(`.${key}.crashed.partial`);
    await runExport(new LocalFolderDestination({ dir, staleVersionAgeMs: 0 }), period, 'v2', files);
    // Another period's leftovers are that period's business.
    expect(await entries()).toEqual([`.${key}.v2`, `.2024-06-01_2024-06-07.other.partial`, key]);
  });

  it('removes, when an export starts, the .partial folders of processes of the same machine that are gone', async () => {
    await mkdir(dir, { recursive: true });
    // A process that has exited: its pid names no process now.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const other = '2024-06-01_2024-06-07';
    const leftover = async (name: string, marker?: Record<string, unknown>): Promise<void> => {
      await mkdir(join(dir, name));
      await writeFile(join(dir, name, 'shifts.csv'), testBytes(1000, 3));
      if (marker !== undefined) await writeFile(join(dir, name, '.shift-export'), JSON.stringify(marker));
    };
    const marker = (period: string, id: string, writer: Record<string, unknown>) => ({
      written_by: 'shift-export',
      period,
      export_id: id,
      ...writer,
    });
    const here = { host: hostname(), process_started_at: 1 };
    await leftover(`.${key}.killed.partial`, marker(key, 'killed', { ...here, pid: gone }));
    await leftover(`.${other}.killed2.partial`, marker(other, 'killed2', { ...here, pid: gone }));
    // This process's pid, written by an earlier process that had it.
    await leftover(`.${key}.reused.partial`, marker(key, 'reused', { ...here, pid: process.pid }));
    // Alive: the process that started this test.
    await leftover(`.${key}.alive.partial`, marker(key, 'alive', { ...here, pid: process.ppid }));
    await leftover(
      `.${key}.elsewhere.partial`,
      marker(key, 'elsewhere', { host: 'another-host', pid: gone }),
    );
    // A marker from before writers were named, and no marker at all: not provably dead, or not ours.
    await leftover(`.${key}.old.partial`, marker(key, 'old', {}));
    await leftover(`.${key}.foreign.partial`);
    // And this process's own unfinished export, still open.
    const open = await new LocalFolderDestination({ dir }).begin(period, 'running');

    await runExport(new LocalFolderDestination({ dir }), period, 'v1', files);
    expect(await entries()).toEqual(
      [
        `.${key}.alive.partial`,
        `.${key}.elsewhere.partial`,
        `.${key}.foreign.partial`,
        `.${key}.old.partial`,
        `.${key}.running.partial`,
        `.${key}.v1`,
        key,
      ].sort(),
    );
    await open.abort();
  });

  it.each([
    ['a real folder with a file in it', 'a real folder'],
    ['a regular file', 'a file'],
    ['a symlink to a folder elsewhere', 'a symlink'],
  ])('refuses to publish over %s at <dest>/<from>_<to>, touching nothing', async (_what, named) => {
    await mkdir(dir, { recursive: true });
    const elsewhere = join(root, 'elsewhere');
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, 'notes.txt'), 'mine');
    if (named === 'a real folder') {
      await mkdir(join(dir, key));
      await writeFile(join(dir, key, 'notes.txt'), 'mine');
    } else if (named === 'a file') {
      await writeFile(join(dir, key), 'mine');
    } else {
      await symlink(elsewhere, join(dir, key));
    }
    const before = await entries();
    const dest = new LocalFolderDestination({ dir });
    const error = await rejection(runExport(dest, period, 'v1', files));
    expect(error.code).toBe('DEST_NOT_OURS');
    expect(error.retryable).toBe(false);
    expect(error.toOneLine()).toMatch(
      new RegExp(
        `^DEST_NOT_OURS: ${join(dir, key).replace(/[/.]/g, '\\$&')} is ${named}.*move it away or choose another EXPORT_DEST`,
      ),
    );
    expect(error.toOneLine()).not.toContain('\n');
    // Nothing moved, nothing removed, no .partial left behind.
    expect(await entries()).toEqual(before);
    expect(await readFile(join(elsewhere, 'notes.txt'), 'utf8')).toBe('mine');
    if (named === 'a real folder') expect(await readdir(join(dir, key))).toEqual(['notes.txt']);
    if (named === 'a file') expect(await readFile(join(dir, key), 'utf8')).toBe('mine');
  });

  it('refuses at publish() a folder that appeared at <dest>/<from>_<to> while the export ran', async () => {
    const dest = new LocalFolderDestination({ dir });
    const publication = await dest.begin(period, 'v1');
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    await writeAll(sink.stream, files['shifts.csv']);
    const stored = await sink.done();
    await mkdir(join(dir, key));
    await writeFile(join(dir, key, 'notes.txt'), 'mine');
    expect((await rejection(publication.publish(JSON.stringify({ files: [stored] })))).code).toBe(
      'DEST_NOT_OURS',
    );
    expect(await entries()).toEqual([key]);
    expect(await readdir(join(dir, key))).toEqual(['notes.txt']);
  });

  it('never removes hidden entries it did not create, however old, even when named like its own', async () => {
    await mkdir(join(dir, `.${key}.notes`), { recursive: true });
    await writeFile(join(dir, `.${key}.notes`, 'a.txt'), 'mine');
    await writeFile(join(dir, `.${key}.backup.tar`), 'mine');
    await mkdir(join(dir, `.${key}.handmade.partial`));
    // A marker copied from another version proves nothing about this one.
    await mkdir(join(dir, `.${key}.copied`));
    await writeFile(
      join(dir, `.${key}.copied`, '.shift-export'),
      JSON.stringify({ written_by: 'shift-export', period: key, export_id: 'v0' }),
    );
    await runExport(new LocalFolderDestination({ dir }), period, 'v1', files);
    await runExport(new LocalFolderDestination({ dir, staleVersionAgeMs: 0 }), period, 'v2', files);
    expect(await entries()).toEqual([
      `.${key}.backup.tar`,
      `.${key}.copied`,
      `.${key}.handmade.partial`,
      `.${key}.notes`,
      `.${key}.v2`,
      key,
    ]);
    expect(await readFile(join(dir, `.${key}.notes`, 'a.txt'), 'utf8')).toBe('mine');
  });

  it('replaces a version published before owner markers existed: its manifest names it', async () => {
    await runExport(new LocalFolderDestination({ dir }), period, 'v1', files);
    await rm(join(dir, `.${key}.v1`, '.shift-export'));
    await runExport(new LocalFolderDestination({ dir }), period, 'v2', files);
    expect(await entries()).toEqual([`.${key}.v2`, key]);
  });

  it('refuses a link at <dest>/<from>_<to> to a version folder with neither marker nor its manifest', async () => {
    await runExport(new LocalFolderDestination({ dir }), period, 'v1', files);
    await rm(join(dir, `.${key}.v1`, '.shift-export'));
    await writeFile(join(dir, `.${key}.v1`, 'manifest.json'), JSON.stringify({ export_id: 'v0', period }));
    const error = await rejection(runExport(new LocalFolderDestination({ dir }), period, 'v2', files));
    expect(error.code).toBe('DEST_NOT_OURS');
    expect(await entries()).toEqual([`.${key}.v1`, key]);
  });

  it('refuses to publish into a folder that was swapped for a symlink out of its roots after begin()', async () => {
    const team = join(dir, 'team');
    const outside = join(root, 'outside');
    await mkdir(team, { recursive: true });
    await mkdir(outside);
    const dest = new LocalFolderDestination({ dir: team, roots: [{ kind: 'local', dir }] });
    const publication = await dest.begin(period, 'v1');
    const sink = publication.openFile('shifts.csv', CONTENT_TYPES.csv);
    await writeAll(sink.stream, files['shifts.csv']);
    const stored = await sink.done();
    await rename(team, join(dir, 'team-before'));
    await symlink(outside, team);
    const error = await rejection(publication.publish(JSON.stringify({ files: [stored] })));
    expect(error.code).toBe('DEST_NOT_ALLOWED');
    expect(await readdir(outside)).toEqual([]);
    // A symlink found at begin() is refused before anything is created.
    expect((await rejection(dest.begin(period, 'v2'))).code).toBe('DEST_NOT_ALLOWED');
  });

  it('refuses a destination folder that is relative or has control characters', () => {
    expect(() => new LocalFolderDestination({ dir: 'exports' })).toThrow(
      expect.objectContaining({ code: 'DEST_INVALID' }),
    );
    expect(() => new LocalFolderDestination({ dir: '/tmp/ex\nports' })).toThrow(
      expect.objectContaining({ code: 'DEST_INVALID' }),
    );
  });
});
