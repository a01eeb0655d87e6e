// One export being written into a local folder: files go into `.<period>.<exportId>.partial/`,
// publish() seals that folder (manifest last, everything fsync'ed), renames it to its version name
// and swaps the `<period>` symlink onto it in one rename(). The scheme and its guarantees are
// described in local-folder-destination.ts. It renames, replaces or deletes only entries it can
// prove it created (local-ownership.ts): anything else at the period's path stops the export before
// it writes a byte, and again right before the swap, with nothing of it touched.

import { mkdirSync } from 'node:fs';
import { mkdir, readdir, rename, rm, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Period } from '../domain/period.js';
import { AbortedError, ShiftExportError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ExportFileSink, ExportPublication, PublishedExport, StoredFile } from './destination.js';
import { abortError, DestinationInvalidError, toLocalDestinationError } from './destination-errors.js';
import { HashingStream } from './hashing-stream.js';
import { sweepDeadPartials } from './dead-partials.js';
import { assertPeriodLinkOurs, ownedHiddenEntry, versionName, writeOwnerMarker } from './local-ownership.js';
import {
  assertFilePath,
  assertManifestJson,
  fileNameOf,
  MANIFEST_NAME,
  safePeriodKey,
} from './safe-names.js';
import { SyncedFileStream, syncFolder } from './synced-file-stream.js';

export interface LocalPublicationOptions {
  readonly dir: string;
  readonly period: Period;
  readonly exportId: string;
  readonly logger: Logger;
  readonly staleVersionAgeMs: number;
  /** Called right before the manifest is written and the folder sealed; a throw fails the export. */
  readonly beforeSealing?: () => Promise<void>;
  readonly signal?: AbortSignal | undefined;
}

interface LocalFile {
  readonly name: string;
  /**
   * Until the file is stored; then let go: a stored file's stream still holds its writer's
   * listeners, and through them the writer (a split export stores thousands of files).
   */
  stream: HashingStream | undefined;
  readonly done: Promise<StoredFile>;
}

type State = 'open' | 'publishing' | 'published' | 'ended';

/** The names of one period's entries in the destination folder. */
function localNames(period: Period, exportId: string) {
  const key = safePeriodKey(period);
  return {
    key,
    /** Hidden siblings of this period all start with this. */
    hiddenPrefix: `.${key}.`,
    partial: `.${key}.${exportId}.partial`,
    version: versionName(key, exportId),
    tempLink: `.${key}.${exportId}.link`,
  };
}

export class LocalPublication implements ExportPublication {
  readonly #options: LocalPublicationOptions;
  readonly #names: ReturnType<typeof localNames>;
  readonly #files = new Map<string, LocalFile>();
  /** Folders inside the export made for files in folders of their own (`divisions/12`). */
  readonly #folders = new Set<string>();
  #state: State = 'open';
  #publishing: Promise<PublishedExport> | undefined;
  #ending: Promise<void> | undefined;
  #failure: ShiftExportError | undefined;
  readonly #onAbort = (): void => {
    if (this.#options.signal !== undefined) void this.abort(abortError(this.#options.signal));
  };

  private constructor(options: LocalPublicationOptions) {
    this.#options = options;
    this.#names = localNames(options.period, options.exportId);
    options.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /**
   * Creates the destination folder (when missing) and this export's `.partial` folder with its
   * owner marker — unless something not ours is at the period's path: then nothing is created.
   */
  static async create(options: LocalPublicationOptions): Promise<LocalPublication> {
    const names = localNames(options.period, options.exportId);
    const partial = join(options.dir, names.partial);
    try {
      await assertPeriodLinkOurs(options.dir, names.key);
      await mkdir(options.dir, { recursive: true });
      // Before this export adds its own: half-written exports of processes that died here.
      await sweepDeadPartials(options.dir, options.logger);
      await mkdir(partial);
    } catch (error) {
      throw toLocalDestinationError(error, 'create the export folder', partial);
    }
    try {
      await writeOwnerMarker(partial, names.key, options.exportId);
    } catch (error) {
      await rm(partial, { recursive: true, force: true }).catch(() => undefined);
      throw toLocalDestinationError(error, 'write the owner marker into', partial);
    }
    return new LocalPublication(options);
  }

  #path(name: string): string {
    return join(this.#options.dir, name);
  }

  #assertOpen(what: string): void {
    if (this.#state !== 'open') {
      throw this.#failure ?? new DestinationInvalidError(`${what} after the export was ${this.#state}`);
    }
  }

  /** `name` is a file's path in the export: `shifts.csv`, or `divisions/12/shifts.csv` in folders of its own. */
  openFile(name: string, _contentType: string): ExportFileSink {
    this.#assertOpen(`openFile(${name})`);
    assertFilePath(name);
    if (this.#files.has(name))
      throw new DestinationInvalidError(`file ${name} was already opened in this export`);
    const partial = this.#path(this.#names.partial);
    const target = join(partial, name);
    if (name.includes('/')) this.#makeFolders(partial, name);
    const stream = new HashingStream();
    const done = pipeline(stream, new SyncedFileStream(target)).then(
      (): StoredFile => ({ name: fileNameOf(name), path: name, ...stream.digest() }),
      (error: unknown) => {
        throw toLocalDestinationError(error, 'write', target);
      },
    );
    // Rejections are reported through done() and publish(); never as unhandled.
    done.catch(() => undefined);
    const file: LocalFile = { name, stream, done };
    this.#files.set(name, file);
    done.then(
      () => (file.stream = undefined),
      () => undefined,
    );
    return { stream, done: () => done };
  }

  /** The folders of a file's path inside the `.partial` folder, remembered to be fsync'ed before sealing. */
  #makeFolders(partial: string, name: string): void {
    let folder = dirname(name);
    if (this.#folders.has(folder)) return;
    // Synchronous, once per folder: openFile hands back its stream at once.
    mkdirSync(join(partial, folder), { recursive: true });
    while (folder !== '.' && !this.#folders.has(folder)) {
      this.#folders.add(folder);
      folder = dirname(folder);
    }
  }

  publish(manifestJson: string): Promise<PublishedExport> {
    try {
      this.#assertOpen('publish()');
    } catch (error) {
      return Promise.reject(error);
    }
    this.#state = 'publishing';
    this.#publishing = this.#publish(manifestJson);
    return this.#publishing;
  }

  async #publish(manifestJson: string): Promise<PublishedExport> {
    const dir = this.#options.dir;
    const linkPath = this.#path(this.#names.key);
    let previous: string | undefined;
    try {
      assertManifestJson(manifestJson);
      // A destroyed file is not "unfinished": its done() rejects below with the reason.
      const unfinished = [...this.#files.values()]
        .filter((f) => f.stream !== undefined && !f.stream.writableEnded && !f.stream.destroyed)
        .map((f) => f.name);
      if (unfinished.length > 0) {
        throw new DestinationInvalidError(`publish() was called before ${unfinished.join(', ')} ended`);
      }
      await Promise.all([...this.#files.values()].map((f) => f.done));
      if (this.#options.signal?.aborted === true) throw abortError(this.#options.signal);
      // The folder's path was checked when the export began; a symlink planted on it since then
      // must not receive the manifest or the link.
      await this.#options.beforeSealing?.();
      // Before the manifest: a foreign entry that appeared while the export ran fails it here.
      await assertPeriodLinkOurs(dir, this.#names.key);

      const partial = this.#path(this.#names.partial);
      const manifest = new SyncedFileStream(join(partial, MANIFEST_NAME));
      await pipeline([manifestJson], manifest);
      // The deepest first: each folder's entry in its parent is synced after the folder itself.
      const folders = [...this.#folders].sort((a, b) => b.split('/').length - a.split('/').length);
      for (const folder of folders) await syncFolder(join(partial, folder));
      await syncFolder(partial);
      await rename(partial, this.#path(this.#names.version));
      await syncFolder(dir);

      // Again at the last moment: rename() below would replace a file (a folder makes it fail).
      // What remains is the microseconds until the rename; Node has no renameat2(RENAME_EXCHANGE).
      const current = await assertPeriodLinkOurs(dir, this.#names.key);
      previous = current.kind === 'ours' ? current.version : undefined;
      const tempLink = this.#path(this.#names.tempLink);
      await rm(tempLink, { force: true });
      await symlink(this.#names.version, tempLink);
      // The one step readers can observe: rename() of a symlink over another is atomic.
      await rename(tempLink, linkPath);
      this.#state = 'published';
    } catch (error) {
      const failure = toLocalDestinationError(error, 'publish the export to', linkPath);
      await this.#discard(failure);
      throw failure;
    } finally {
      this.#options.signal?.removeEventListener('abort', this.#onAbort);
    }

    try {
      await syncFolder(dir);
    } catch (error) {
      this.#options.logger.warn({ err: error, dir }, 'could not fsync the export folder after publishing');
    }
    await this.#removeOldVersions(previous);
    return { location: linkPath, manifestLocation: join(linkPath, MANIFEST_NAME) };
  }

  /**
   * Removes the version the link pointed at before (open file descriptors keep working on Linux, so
   * a download already under way finishes) and, from crashed or abandoned attempts, hidden entries
   * of this period older than staleVersionAgeMs: younger ones may belong to an export another
   * process is still writing. Only entries proven ours (local-ownership.ts) are removed. Failures
   * are logged: the export is already published.
   */
  async #removeOldVersions(previous: string | undefined): Promise<void> {
    const { dir, logger, staleVersionAgeMs } = this.#options;
    const key = this.#names.key;
    const remove = async (name: string): Promise<void> => {
      try {
        await rm(this.#path(name), { recursive: true, force: true });
      } catch (error) {
        logger.warn({ err: error, path: this.#path(name) }, 'could not remove an old export version');
      }
    };
    // Never the version just published.
    const isOurs = async (name: string) =>
      name === this.#names.version ? undefined : ownedHiddenEntry(dir, name, key);
    if (previous !== undefined && (await isOurs(previous)) !== undefined) await remove(previous);
    let entries: string[];
    try {
      entries = await readdir(dir);
    } catch (error) {
      logger.warn({ err: error, dir }, 'could not list the export folder to remove stale versions');
      return;
    }
    const cutoff = Date.now() - staleVersionAgeMs;
    for (const name of entries) {
      if (!name.startsWith(this.#names.hiddenPrefix)) continue;
      try {
        const ours = await isOurs(name);
        if (ours === undefined) {
          logger.debug({ path: this.#path(name) }, 'left alone: not created by shift-export');
          continue;
        }
        if (ours.mtimeMs <= cutoff) await remove(name);
      } catch {
        // Gone already (another process cleaned it): nothing to do.
      }
    }
  }

  async abort(reason?: unknown): Promise<void> {
    if (this.#state === 'published') return;
    if (this.#state === 'publishing') {
      // publish() either finishes (nothing left to abort) or fails and cleans up after itself.
      await this.#publishing?.catch(() => undefined);
      return;
    }
    if (this.#ending !== undefined) return this.#ending;
    await this.#discard(
      reason instanceof ShiftExportError ? reason : new AbortedError('the export was aborted', reason),
    );
  }

  /** Stops every file, removes everything of this attempt; never throws. */
  #discard(failure: ShiftExportError): Promise<void> {
    this.#ending ??= (async () => {
      this.#state = 'ended';
      this.#failure = failure;
      this.#options.signal?.removeEventListener('abort', this.#onAbort);
      for (const file of this.#files.values()) {
        if (file.stream !== undefined && !file.stream.writableFinished) file.stream.destroy(failure);
      }
      await Promise.allSettled([...this.#files.values()].map((f) => f.done));
      for (const name of [this.#names.partial, this.#names.version, this.#names.tempLink]) {
        try {
          await rm(this.#path(name), { recursive: true, force: true });
        } catch (error) {
          this.#options.logger.warn(
            { err: error, path: this.#path(name) },
            'could not remove a failed export attempt',
          );
        }
      }
    })();
    return this.#ending;
  }
}
