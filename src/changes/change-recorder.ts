// Change tracking, a step of the export (run-export.ts): record() notes each exported row's shift
// id and the hash of its values (row-hash.ts) while the files are written; before the manifest is
// published, conclude() stores the sorted fingerprints as `row-hashes.bin` in the publication,
// reads the previous export's manifest and row-hashes file back through the destination (local
// folder or S3 alike), and says what goes into the manifest: `previous` and `changes`.
//
// Counting changes is bookkeeping, so it degrades instead of failing the export, but never
// silently: when the fingerprints cannot be spilled to or sorted in their temp files (TMPDIR full
// or unwritable), the export is published without row-hashes.bin; when the previous export's
// manifest cannot be read, lists no row-hashes file, or that file is damaged or of an older format,
// nothing can be counted. Either way the manifest says `"changes": null` with
// `changes_unavailable: {reason, message}`, and a warning is logged. `previous` is recorded
// whenever the previous manifest was read. Failing to store row-hashes.bin fails the export like
// any other file. dispose() removes the temp files, whether the export was published or not.

import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { pipeline } from 'node:stream/promises';
import type { Destination, ExportPublication } from '../destinations/destination.js';
import type { Period } from '../domain/period.js';
import { SHIFT_COLUMNS } from '../domain/shift-columns.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { redactSecrets } from '../redact-secrets.js';
import {
  CHANGES_MESSAGE_MAX,
  parseManifest,
  type ChangesUnavailableReason,
  type Manifest,
  type ManifestFile,
} from '../render/manifest.js';
import { RowChangeCounter } from './row-change-counter.js';
import { RowFingerprints, type SortedFingerprints } from './row-fingerprints.js';
import { RowHasher } from './row-hash.js';
import { ROW_HASHES_CONTENT_TYPE, ROW_HASHES_FILE, RowHashesFormatError } from './row-hashes-format.js';

type ChangesUnavailable = NonNullable<Manifest['changes_unavailable']>;

/** What change tracking adds to the manifest. */
export type RecordedChanges = Pick<Manifest, 'previous' | 'changes' | 'changes_unavailable'> & {
  /** row-hashes.bin as stored in the publication; absent when the fingerprints failed. */
  readonly file?: ManifestFile;
};

/** Why changes are not counted, as the manifest holds it: one line, no secret, bounded. */
function unavailable(reason: ChangesUnavailableReason, message: string): ChangesUnavailable {
  const line = redactSecrets(message).replace(/\s*\n\s*/g, ' ');
  return {
    reason,
    message: line.length > CHANGES_MESSAGE_MAX ? `${line.slice(0, CHANGES_MESSAGE_MAX - 1)}…` : line,
  };
}

function isUnavailable<T extends object>(value: T | ChangesUnavailable): value is ChangesUnavailable {
  return 'reason' in value && 'message' in value;
}

export interface ChangeRecorderOptions {
  readonly logger: Logger;
  /** Where row fingerprints spill while the export runs; default os.tmpdir(). */
  readonly tempDir?: string;
  /**
   * In an export split by division, the rows of one division: its row-hashes.bin goes into
   * `divisions/<division_id>/`, listed with its division_id, and is compared with the previous
   * export's file of the same division.
   */
  readonly divisionId?: number;
}

/** The previous export's manifest; undefined when there is none; why it cannot be read. */
export type PreviousManifest = Manifest | ChangesUnavailable | undefined;

/** Where a division's files go in an export split by division. */
export function divisionFolder(divisionId: number): string {
  return `divisions/${divisionId}`;
}

/** Where the previous export of the period is read from. */
export type PreviousExports = Pick<Destination, 'readManifest' | 'openPublishedFile'>;

const shiftHasher = new RowHasher(SHIFT_COLUMNS);
const hashShift = (record: ShiftRecord, target: Buffer, offset: number): void =>
  shiftHasher.hashInto(record, target, offset);

/** record() every exported row, conclude() once before publishing, dispose() always. */
export class ChangeRecorder {
  readonly #log: Logger;
  readonly #tempDir: string;
  readonly #fingerprints: RowFingerprints<ShiftRecord>;
  readonly #divisionId: number | undefined;
  /** Why fingerprints could not be taken, when that happened. */
  #problem: string | undefined;

  constructor(options: ChangeRecorderOptions) {
    this.#log = options.logger;
    this.#tempDir = options.tempDir ?? tmpdir();
    this.#fingerprints = new RowFingerprints({ tempDir: this.#tempDir, hash: hashShift });
    this.#divisionId = options.divisionId;
  }

  /** Notes one exported row; never throws (a failed spill is reported by conclude()). */
  record(record: ShiftRecord): void {
    if (this.#problem !== undefined) return;
    try {
      this.#fingerprints.add(record.shift.id, record);
    } catch (error) {
      // The temp file could not be written (disk full...): bookkeeping, not a reason to fail.
      this.#problem = `the row fingerprints could not be written to the temp folder ${this.#tempDir}: ${describeError(error)}`;
    }
  }

  /** Notes exported rows by their ids and their fingerprints, taken on an export thread (8 bytes each). */
  recordHashes(ids: Float64Array, hashes: Buffer): void {
    if (this.#problem !== undefined) return;
    try {
      this.#fingerprints.addHashes(ids, hashes);
    } catch (error) {
      this.#problem = `the row fingerprints could not be written to the temp folder ${this.#tempDir}: ${describeError(error)}`;
    }
  }

  /**
   * Stores row-hashes.bin in `publication` and compares with the export of `period` that
   * `previous` holds now; what the manifest says about it (`changes: null` and why, logged as a
   * warning, when they cannot be counted). `known`: the previous manifest, already read.
   */
  async conclude(
    publication: ExportPublication,
    previous: PreviousExports,
    period: Period,
    known?: { readonly before: PreviousManifest },
  ): Promise<RecordedChanges> {
    const before = known === undefined ? await previousManifest(previous, period) : known.before;
    const recorded: RecordedChanges =
      before === undefined || isUnavailable(before)
        ? {}
        : { previous: { export_id: before.export_id, generated_at: before.generated_at } };
    const sorted = await this.#sorted();
    if (isUnavailable(sorted)) return this.#notCounted(recorded, sorted);
    const stored = { ...recorded, file: await store(publication, sorted, this.#divisionId) };
    if (before === undefined) return stored;
    const changes = isUnavailable(before)
      ? before
      : await countChanges(previous, period, before, sorted, this.#divisionId);
    return isUnavailable(changes) ? this.#notCounted(stored, changes) : { ...stored, changes };
  }

  /** Removes the fingerprints' temp files; a file left behind is logged, not a failed export. */
  async dispose(): Promise<void> {
    try {
      await this.#fingerprints.dispose();
    } catch (error) {
      this.#log.warn({ err: describeError(error) }, 'a temp file of row fingerprints could not be removed');
    }
  }

  /** The fingerprints sorted for row-hashes.bin, or why there are none. */
  async #sorted(): Promise<SortedFingerprints | ChangesUnavailable> {
    if (this.#problem !== undefined) return unavailable('row_hashes_not_written', this.#problem);
    try {
      return await this.#fingerprints.finish();
    } catch (error) {
      return unavailable(
        'row_hashes_not_written',
        `the row fingerprints could not be sorted in the temp folder ${this.#tempDir}: ${describeError(error)}`,
      );
    }
  }

  #notCounted(recorded: RecordedChanges, why: ChangesUnavailable): RecordedChanges {
    this.#log.warn(
      { reason: why.reason, why: why.message },
      'rows changed since the previous export are not counted; the manifest says why',
    );
    return { ...recorded, changes: null, changes_unavailable: why };
  }
}

async function store(
  publication: ExportPublication,
  sorted: SortedFingerprints,
  divisionId: number | undefined,
): Promise<ManifestFile> {
  const path =
    divisionId === undefined ? ROW_HASHES_FILE : `${divisionFolder(divisionId)}/${ROW_HASHES_FILE}`;
  const sink = publication.openFile(path, ROW_HASHES_CONTENT_TYPE);
  // Both must succeed: a failed read destroys the sink, and done() rejects too.
  const [, stored] = await Promise.all([pipeline(sorted.stream(), sink.stream), sink.done()]);
  return {
    ...stored,
    rows: sorted.count,
    content_type: ROW_HASHES_CONTENT_TYPE,
    ...(divisionId === undefined ? {} : { division_id: divisionId }),
  };
}

/** The previous export's manifest; undefined when there is none; why it cannot be read. */
export async function previousManifest(previous: PreviousExports, period: Period): Promise<PreviousManifest> {
  try {
    const text = await previous.readManifest(period);
    return text === undefined ? undefined : parseManifest(text);
  } catch (error) {
    return unavailable(
      'previous_manifest_unreadable',
      `the previous manifest of the period cannot be read: ${describeError(error)}`,
    );
  }
}

async function countChanges(
  previous: PreviousExports,
  period: Period,
  before: Manifest,
  current: SortedFingerprints,
  divisionId: number | undefined,
): Promise<NonNullable<Manifest['changes']> | ChangesUnavailable> {
  // The export's own file, or (split by division) the division's: the files share one name.
  const entry = before.files.find((f) => f.name === ROW_HASHES_FILE && f.division_id === divisionId);
  if (entry === undefined) {
    return unavailable(
      'previous_row_hashes_missing',
      `the previous export ${before.export_id} has no ${ROW_HASHES_FILE} (its row fingerprints could not be written, or an older release exported it without shifts.csv)`,
    );
  }
  try {
    const counter = new RowChangeCounter(current);
    const hash = createHash('sha256');
    const stream = await previous.openPublishedFile(period, entry.path);
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      hash.update(bytes);
      counter.push(bytes);
    }
    // Another export may have replaced the previous one between reading its manifest and its file.
    if (hash.digest('hex') !== entry.sha256) {
      return unavailable(
        'previous_row_hashes_unreadable',
        `the ${ROW_HASHES_FILE} of the previous export ${before.export_id} does not match its manifest`,
      );
    }
    return { previous_export_id: before.export_id, ...counter.finish() };
  } catch (error) {
    if (error instanceof RowHashesFormatError) {
      return unavailable(
        'previous_row_hashes_format',
        `the previous export ${before.export_id} (${before.tool.name} ${before.tool.version}) cannot be compared: ${error.message}`,
      );
    }
    return unavailable(
      'previous_row_hashes_unreadable',
      `the ${ROW_HASHES_FILE} of the previous export ${before.export_id} cannot be read: ${describeError(error)}`,
    );
  }
}
