// The local-folder destination (`--dest DIR`). Layout and publishing scheme:
//
//   DIR/2024-05-01_2024-05-07                  -> .2024-05-01_2024-05-07.<exportId>   (a symlink)
//   DIR/.2024-05-01_2024-05-07.<exportId>/      the published version: files + manifest.json
//   DIR/.2024-05-01_2024-05-07.<exportId>.partial/   an export being written (never read)
//
// 1. begin() creates the hidden `.partial` folder; every file is written there through a
//    counting/hashing stream and fsync'ed when it ends.
// 2. publish() writes manifest.json last (fsync'ed), fsyncs the folder, renames it to its version
//    name, then creates a new symlink under a temporary name and rename()s it over
//    `DIR/<from>_<to>`. rename(2) replaces the old link in one step, so a reader resolving the
//    path sees either the complete old export or the complete new one — never a half-written
//    folder, never no folder. The folder is fsync'ed after each rename.
// 3. The version the link pointed at before is removed. On Linux an open file stays readable after
//    its folder is removed, so a download already reading the old files finishes; a reader that
//    wants a consistent set should resolve the link once (realpath) and read from there, as
//    openPublishedFile() does.
// 4. abort() (or a failure, or the AbortSignal) destroys the open files and removes the `.partial`
//    folder: the previous export stays as it was. Hidden entries left by crashed attempts are
//    removed by a later publish of the same period once they are older than staleVersionAgeMs.
//
// Only what the exporter created is ever renamed, replaced or removed (local-ownership.ts): each
// version folder holds an owner marker, `.shift-export`. Anything else at `DIR/<from>_<to>` — a
// real folder (someone's notes, an older tool's output), a file, a symlink to elsewhere — stops
// the export with DEST_NOT_OURS before it writes anything, and is left untouched.
//
// With `roots` (the worker's EXPORT_DEST and EXPORT_DEST_ALLOW), DIR must lie inside them by real
// path when an export begins and again right before its manifest is written: a symlink planted on
// the path meanwhile does not receive the publish. Files are created with O_EXCL inside the
// `.partial` folder made at begin(), so a swapped path makes them fail rather than land elsewhere.

import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, realpath, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Period } from '../domain/period.js';
import { silentLogger, type Logger } from '../logger.js';
import { assertDestinationAllowed } from './allowed-destination.js';
import type { Destination, ExportPublication } from './destination.js';
import {
  abortError,
  DestinationInvalidError,
  DestinationNotFoundError,
  LocalDestinationError,
  toLocalDestinationError,
} from './destination-errors.js';
import { hasControlCharacters } from '../one-line.js';
import { LocalPublication } from './local-publication.js';
import type { ParsedDestination } from '../destination-address.js';
import {
  assertExportId,
  MANIFEST_NAME,
  printable,
  relativePathSegments,
  safePeriodKey,
} from './safe-names.js';

export interface LocalFolderDestinationOptions {
  /** Absolute path of the destination folder; created when missing. */
  readonly dir: string;
  readonly logger?: Logger;
  /** Hidden leftovers of other attempts younger than this are never removed (default 1 h). */
  readonly staleVersionAgeMs?: number;
  /** When given, `dir` must stay inside these roots (by real path) when an export begins and publishes. */
  readonly roots?: readonly ParsedDestination[] | undefined;
}

export const DEFAULT_STALE_VERSION_AGE_MS = 60 * 60 * 1000;

const NOT_THERE = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'EISDIR']);

function isNotThere(error: unknown): boolean {
  return NOT_THERE.has((error as NodeJS.ErrnoException | null)?.code ?? '');
}

export class LocalFolderDestination implements Destination {
  readonly description: string;
  readonly dir: string;
  readonly #logger: Logger;
  readonly #staleVersionAgeMs: number;
  readonly #roots: readonly ParsedDestination[] | undefined;

  constructor(options: LocalFolderDestinationOptions) {
    if (!isAbsolute(options.dir))
      throw new DestinationInvalidError(`destination folder ${printable(options.dir)} is not absolute`);
    if (hasControlCharacters(options.dir)) {
      throw new DestinationInvalidError(
        `destination folder ${printable(options.dir)} contains control characters`,
      );
    }
    this.dir = options.dir;
    this.description = options.dir;
    this.#logger = options.logger ?? silentLogger;
    this.#staleVersionAgeMs = options.staleVersionAgeMs ?? DEFAULT_STALE_VERSION_AGE_MS;
    this.#roots = options.roots;
  }

  /** Throws DEST_NOT_ALLOWED when `dir` (by real path, now) is outside the roots given. */
  async #assertInsideRoots(): Promise<void> {
    if (this.#roots !== undefined)
      await assertDestinationAllowed({ kind: 'local', dir: this.dir }, this.#roots);
  }

  /** The path readers use for the published export of `period`: a symlink to its version folder. */
  exportPath(period: Period): string {
    return join(this.dir, safePeriodKey(period));
  }

  async begin(period: Period, exportId: string, signal?: AbortSignal): Promise<ExportPublication> {
    assertExportId(exportId);
    if (signal?.aborted === true) throw abortError(signal);
    await this.#assertInsideRoots();
    return LocalPublication.create({
      dir: this.dir,
      period,
      exportId,
      logger: this.#logger.child({ destination: 'local', period: safePeriodKey(period), exportId }),
      staleVersionAgeMs: this.#staleVersionAgeMs,
      beforeSealing: () => this.#assertInsideRoots(),
      signal,
    });
  }

  async readManifest(period: Period): Promise<string | undefined> {
    const path = join(this.exportPath(period), MANIFEST_NAME);
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      if (isNotThere(error)) return undefined;
      throw toLocalDestinationError(error, 'read', path);
    }
  }

  async openPublishedFile(period: Period, path: string): Promise<NodeJS.ReadableStream> {
    const segments = relativePathSegments(path);
    const linkPath = this.exportPath(period);
    let handle: FileHandle | undefined;
    try {
      // Resolve the link once: the manifest and the files a reader opens then come from one version.
      const folder = await realpath(linkPath);
      // O_NOFOLLOW: a symlink planted inside an export folder cannot lead a download elsewhere.
      handle = await open(join(folder, ...segments), constants.O_RDONLY | constants.O_NOFOLLOW);
      if (!(await handle.stat()).isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
      return handle.createReadStream();
    } catch (error) {
      await handle?.close().catch(() => undefined);
      if (isNotThere(error)) {
        throw new DestinationNotFoundError(
          `${path} is not a published file of ${safePeriodKey(period)} in ${this.dir}`,
        );
      }
      throw toLocalDestinationError(error, 'read', join(linkPath, ...segments));
    }
  }

  /** Creates the folder when missing and proves it writable by creating and removing a probe file. */
  async check(): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new LocalDestinationError(
          `cannot use ${this.dir} as the export folder: it exists and is not a folder`,
          {
            retryable: false,
            cause: error,
            details: { path: this.dir },
          },
        );
      }
      throw toLocalDestinationError(error, 'create the export folder', this.dir);
    }
    const probe = join(this.dir, `.write-check-${randomUUID()}`);
    try {
      await writeFile(probe, '', { flag: 'wx' });
      await unlink(probe);
    } catch (error) {
      throw toLocalDestinationError(error, 'write into the export folder', this.dir);
    }
  }
}
