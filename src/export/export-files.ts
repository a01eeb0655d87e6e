// The files of one export, as its outputs open them in the publication: each with its content
// type and encoding and the data rows its output counted, in the order opened — the order the
// manifest lists them. stored() waits until every file is durably stored and gives its manifest
// entry; abandon() is the end of a failed export: whatever is still being written is destroyed
// and the publication aborted, so nothing of it becomes visible.

import type { Writable } from 'node:stream';
import type {
  ExportFileSink,
  ExportPublication,
  PublishedExport,
  StoredFile,
} from '../destinations/destination.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import type { Logger } from '../logger.js';
import type { ManifestFile } from '../render/manifest.js';

/** One file being written. */
export class ExportFile {
  /** Until the file is stored: then let go, with the writer its listeners hold. */
  #sink: ExportFileSink | undefined;
  readonly #done: Promise<StoredFile>;
  readonly contentType: string;
  readonly contentEncoding: 'gzip' | undefined;
  /** The division whose rows the file holds, in an export split by division. */
  readonly divisionId: number | undefined;
  /** Data rows, as the manifest lists them; set by the output that ends the file. */
  rows = 0;
  /** A workbook's language, as the manifest lists it; set by the workbook's output. */
  lang: ReportLanguage | undefined;

  constructor(
    sink: ExportFileSink,
    contentType: string,
    contentEncoding: 'gzip' | undefined,
    divisionId?: number,
  ) {
    this.#sink = sink;
    this.#done = sink.done();
    this.#done.then(
      () => (this.#sink = undefined),
      // Reported by done() to whoever awaits it.
      () => undefined,
    );
    this.contentType = contentType;
    this.contentEncoding = contentEncoding;
    this.divisionId = divisionId;
  }

  /** Where the file's bytes go (honour backpressure), then end() it. */
  get stream(): Writable {
    if (this.#sink === undefined) throw new Error('the file is stored already: nothing more can be written');
    return this.#sink.stream;
  }

  /** The stream while the file is not stored yet. */
  get unstored(): Writable | undefined {
    return this.#sink?.stream;
  }

  /** Resolves once the file is durably stored. */
  done(): Promise<StoredFile> {
    return this.#done;
  }
}

/** What an output opens its files with: the export's files, or one division's. */
export interface FileOpener {
  /** Starts a file (`gzip`: a `.gz` file served as its content type, compressed). */
  open(name: string, contentType: string, contentEncoding?: 'gzip'): ExportFile;
}

export class ExportFiles implements FileOpener {
  readonly #publication: ExportPublication;
  readonly #files: ExportFile[] = [];

  constructor(publication: ExportPublication) {
    this.#publication = publication;
  }

  /** Starts a file of the export (`gzip`: a `.gz` file served as its content type, compressed). */
  open(name: string, contentType: string, contentEncoding?: 'gzip'): ExportFile {
    const sink = this.#publication.openFile(name, contentType, contentEncoding);
    const file = new ExportFile(sink, contentType, contentEncoding);
    this.#files.push(file);
    return file;
  }

  /** The files of one division, in `folder` (divisions/<division_id>), each listed with its division_id. */
  division(divisionId: number, folder: string): FileOpener {
    return {
      open: (name, contentType, contentEncoding) => {
        const sink = this.#publication.openFile(`${folder}/${name}`, contentType, contentEncoding);
        const file = new ExportFile(sink, contentType, contentEncoding, divisionId);
        this.#files.push(file);
        return file;
      },
    };
  }

  /** Once every output has ended its files: each file stored, as the manifest lists it. */
  async stored(): Promise<ManifestFile[]> {
    return Promise.all(this.#files.map(async (file) => manifestFile(await file.done(), file)));
  }

  /** Stores manifest.json last and makes the export visible (ExportPublication.publish). */
  publish(manifestJson: string): Promise<PublishedExport> {
    return this.#publication.publish(manifestJson);
  }

  /** The export failed: every file still open is destroyed, the publication aborted; never rejects. */
  async abandon(error: unknown, log: Logger): Promise<void> {
    for (const file of this.#files) {
      const stream = file.unstored;
      if (stream !== undefined && !stream.destroyed)
        stream.destroy(error instanceof Error ? error : new Error(String(error)));
      // done() rejects now; its error is the one we already have.
      file.done().catch(() => undefined);
    }
    try {
      await this.#publication.abort(error);
    } catch (abortError) {
      log.error({ err: abortError }, 'cleaning up the failed export failed too');
    }
  }
}

function manifestFile(stored: StoredFile, file: ExportFile): ManifestFile {
  return {
    name: stored.name,
    path: stored.path,
    bytes: stored.bytes,
    sha256: stored.sha256,
    rows: file.rows,
    content_type: file.contentType,
    ...(file.contentEncoding === undefined ? {} : { content_encoding: file.contentEncoding }),
    ...(file.divisionId === undefined ? {} : { division_id: file.divisionId }),
    ...(file.lang === undefined ? {} : { lang: file.lang }),
  };
}
