// An export split by division (ExportScope.split: 'division'), as one member of the fan-out: the
// report is read once, and each batch's exported shifts are set aside by division (DivisionSpool),
// as the lines the export threads rendered when the rows were worked there.
// When every batch is in, each division's files are written in turn under `divisions/<id>/` —
// every requested format of that division alone, through the same outputs as a whole export
// (shifts.*, the summaries, a workbook whose Overview charts the division's regions) — with the
// division's own statistics and its own row-hashes.bin, compared with the previous export's file of
// the same division. One division's writers are open at a time, so memory does not grow with the
// number of divisions; its files are stored before the next division begins.
//
// When the report's rows were worked on export threads, a division's rows are worked there too:
// its spool is cut into runs of one block of lines (60 KiB), which the threads turn into the same
// worked cuts as the report's (cut-work.ts, workSpoolLines: CSV records, Parquet values,
// fingerprints, facts, and sheet rows once placed), and this thread only takes them in order
// (WorkedCutPipeline) and writes them. A few runs are under way at once, the next division's
// already while this one's files end, so the threads are not idle between divisions.

import {
  ChangeRecorder,
  divisionFolder,
  type PreviousExports,
  type PreviousManifest,
  type RecordedChanges,
} from '../changes/change-recorder.js';
import type { ExportPublication } from '../destinations/destination.js';
import type { ExportFormat } from '../domain/export-format.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import type { ShiftRecord } from '../domain/shift-record.js';
import type { ExportSummaries } from '../domain/summary.js';
import { ShiftAggregator } from '../pipeline/aggregate.js';
import type { DivisionDirectory, DivisionInfo } from '../pipeline/enrich.js';
import type { GroupMemory } from '../pipeline/group-spill.js';
import {
  lowestShops,
  manifestStatistics,
  regionRates,
  type ManifestDivision,
  type ManifestFile,
} from '../render/manifest.js';
import { TempFolder } from '../temp-file.js';
import { MAX_CUT_TEXT_BYTES } from '../wfm/scanned-cut.js';
import { BatchFanOut } from './batch-fan-out.js';
import { CsvTablesOutput, DIVISION_CSV_TABLES, SPLIT_EXPORT_CSV_TABLES } from './csv-tables-output.js';
import { DivisionSpool, type SpooledDivision } from './division-spool.js';
import type { ExportFile, ExportFiles } from './export-files.js';
import { openTableOutputs } from './open-table-outputs.js';
import type { WorkedCut } from './cut-work.js';
import type { ShiftThreads } from './shift-threads.js';
import type { ExportBatch, ExportEnding, OutputSetup, TableOutput } from './table-output.js';
import { throwIfAborted } from './throw-if-aborted.js';
import { WorkedCutPipeline } from './worked-cut-pipeline.js';

/**
 * Bytes of spool lines in a run sent to an export thread: one spool block, as a report's cut is
 * decoded at once, and no larger (MAX_CUT_TEXT_BYTES); a division of ~1,500 rows is many runs,
 * which the threads share.
 */
const RUN_BYTES = MAX_CUT_TEXT_BYTES;

export interface DivisionSplitOptions {
  readonly formats: readonly ExportFormat[];
  /** The export's outputs' setup; each division gets its own files and directory from it. */
  readonly setup: Omit<OutputSetup, 'files'>;
  readonly files: ExportFiles;
  /** Where each division's row-hashes.bin is stored, and the previous export read. */
  readonly publication: ExportPublication;
  readonly previous: PreviousExports;
  /** The export's previous manifest, as change tracking read it. */
  readonly readPrevious: () => Promise<PreviousManifest>;
  /** Where the spool's temp file goes; removed with the export's other temp files. */
  readonly temp: TempFolder;
  /** EXPORT_MEMORY_MB for each division's user and shop groups (their runs go to a temp folder of the division's). */
  readonly groupMemory: GroupMemory | undefined;
  /**
   * The export threads that worked the report's rows (export-core.ts), which then work the
   * divisions' rows too; none: each division's rows are rendered here, from their records.
   */
  readonly threads?: ShiftThreads | undefined;
  /** Checked between divisions: a cancelled export stops before the next one. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Each division's further workbook languages (its managers', division-languages.ts); a division
   * not in it gets the export's language alone.
   */
  readonly moreLanguages?: ReadonlyMap<number, readonly ReportLanguage[]> | undefined;
}

/** What the split adds to the manifest. */
export interface SplitResult {
  readonly divisions: readonly ManifestDivision[];
  /** Each division's row-hashes.bin, with its division_id (absent when its fingerprints failed). */
  readonly rowHashes: readonly ManifestFile[];
}

export class DivisionSplit implements TableOutput {
  readonly #o: DivisionSplitOptions;
  readonly #spool: DivisionSpool;
  #result: SplitResult | undefined;

  constructor(options: DivisionSplitOptions) {
    this.#o = options;
    this.#spool = new DivisionSpool(options.temp, options.setup.divisions);
  }

  /**
   * The outputs of an export split by division: rejected.csv at the top (a rejected row's division
   * cannot be trusted), whatever the formats, and the divisions' files.
   */
  outputs(): TableOutput[] {
    return [new CsvTablesOutput(this.#o.files, this.#o.setup.settings, SPLIT_EXPORT_CSV_TABLES), this];
  }

  /** The divisions and their row-hashes files, once finish() has written them. */
  get result(): SplitResult {
    if (this.#result === undefined) throw new Error('the divisions are not written yet');
    return this.#result;
  }

  write(batch: ExportBatch): Promise<void> {
    for (const record of batch.shifts) this.#spool.add(record);
    // Rows worked on export threads come as their lines, rendered there (cut-work.ts).
    const lines = batch.worked?.spool;
    if (lines !== undefined) this.#spool.addLines(lines.lines, lines.ends, lines.divisionIds);
    else if ((batch.worked?.count ?? 0) > 0)
      throw new Error('rows worked on export threads came without spool lines');
    return Promise.resolve();
  }

  async finish(ending: ExportEnding): Promise<void> {
    const before = await this.#o.readPrevious();
    const divisions: ManifestDivision[] = [];
    const rowHashes: ManifestFile[] = [];
    const spooled = this.#spool.divisions();
    const threads = this.#o.threads;
    const runs = threads === undefined ? undefined : new WorkedRuns(threads, this.#spool, spooled);
    for (const division of spooled) {
      throwIfAborted(this.#o.signal);
      const written = await this.#writeDivision(
        division,
        ending,
        divisionBefore(before, division.divisionId),
        runs,
      );
      divisions.push(written.division);
      if (written.rowHashes !== undefined) rowHashes.push(written.rowHashes);
    }
    this.#result = { divisions, rowHashes };
    // How the divisions' rows were rendered: runs of spool lines worked on the export threads (0: here).
    this.#o.setup.log.debug(
      { divisions: divisions.length, threadRuns: runs?.sent ?? 0 },
      'divisions written',
    );
  }

  /** Nothing open between divisions; the spool's temp file goes with the export's temp folder. */
  async abort(): Promise<void> {}

  async #writeDivision(
    spooled: SpooledDivision,
    ending: ExportEnding,
    before: PreviousManifest,
    runs: WorkedRuns | undefined,
  ): Promise<{ division: ManifestDivision; rowHashes: ManifestFile | undefined }> {
    const { setup, formats, files, groupMemory } = this.#o;
    // The division's spilled groups are removed once its files are written, not at the export's end.
    const divisionTemp = new TempFolder(this.#o.temp.directory);
    const memory = groupMemory && { ...groupMemory, temp: divisionTemp };
    const id = spooled.divisionId;
    const opened: ExportFile[] = [];
    const divisionFiles = files.division(id, divisionFolder(id));
    const info = setup.divisions.get(id);
    // Its own directory: the summaries then list no other division, not even by name.
    const directory = new Map<number, DivisionInfo>(info === undefined ? [] : [[id, info]]);
    const divisionSetup: OutputSetup = {
      ...setup,
      files: { open: (...args) => pushed(opened, divisionFiles.open(...args)) },
      divisions: directory,
      divisionId: id,
      moreLanguages: this.#o.moreLanguages?.get(id) ?? [],
    };
    const outputs = new BatchFanOut(await openTableOutputs(formats, divisionSetup, DIVISION_CSV_TABLES));
    const changes = new ChangeRecorder({
      logger: setup.log,
      divisionId: id,
      ...(setup.settings.tempDir === undefined ? {} : { tempDir: setup.settings.tempDir }),
    });
    try {
      const { summaries, flagged, name } =
        runs === undefined
          ? await this.#writeRecords(spooled, outputs, changes, directory, memory)
          : await writeWorkedRuns(spooled, runs, outputs, changes, directory, memory);
      const { file, ...changed } = await changes.conclude(
        this.#o.publication,
        this.#o.previous,
        setup.period,
        {
          before,
        },
      );
      // The export's counts, but for the shifts and flags this division's files hold.
      const counts = { ...ending.counts, exported: spooled.shifts, flagged };
      await outputs.finish({
        summaries,
        counts,
        changes: changed,
        // The whole previous manifest: each workbook compares with its division's entry.
        ...(ending.previousPeriod === undefined ? {} : { previousPeriod: ending.previousPeriod }),
      });
      // Stored before the next division begins: an upload's buffers are not kept for all of them.
      await Promise.all(opened.map((f) => f.done()));
      return {
        division: {
          division_id: id,
          division_name: name ?? info?.name ?? '',
          shifts: spooled.shifts,
          changed: changedOf(changed),
          // The division at a glance, from its own summaries: its mail shows these, and the next
          // period's mail compares with them.
          statistics: manifestStatistics(summaries.overall),
          region_rates: regionRates(summaries.regions),
          lowest_shops: lowestShops(summaries.shops),
        },
        rowHashes: file,
      };
    } catch (error) {
      await outputs.abort(error);
      throw error;
    } finally {
      await changes.dispose();
      divisionTemp.dispose();
    }
  }

  /**
   * A division's rows rendered here, from their records: its statistics, fingerprints, flagged
   * rows and last division name.
   */
  async #writeRecords(
    spooled: SpooledDivision,
    outputs: TableOutput,
    changes: ChangeRecorder,
    directory: DivisionDirectory,
    memory: GroupMemory | undefined,
  ): Promise<WrittenRows> {
    const aggregator = new ShiftAggregator(directory, memory);
    let flagged = 0;
    let name: string | undefined;
    for (const records of this.#spool.read(spooled)) {
      for (const record of records) {
        aggregator.add(record);
        changes.record(record);
        if (record.qualityFlags !== '') flagged++;
      }
      name = lastName(records) ?? name;
      await outputs.write({ shifts: records, rejected: [] });
    }
    return { summaries: aggregator.finish(), flagged, name };
  }
}

/** What writing a division's rows gave: its statistics, its flagged rows, the last row's division name. */
interface WrittenRows {
  readonly summaries: ExportSummaries;
  readonly flagged: number;
  readonly name: string | undefined;
}

/**
 * A division's rows worked on the export threads, run by run in order (`runs` hands them out), and
 * written as worked batches, as a whole export's are (stream-batches.ts).
 */
async function writeWorkedRuns(
  spooled: SpooledDivision,
  runs: WorkedRuns,
  outputs: TableOutput,
  changes: ChangeRecorder,
  directory: DivisionDirectory,
  memory: GroupMemory | undefined,
): Promise<WrittenRows> {
  const pipeline = new WorkedCutPipeline({
    divisions: directory,
    groupMemory: memory,
    filtered: false,
    sheetRows: runs.sheetRows ? runs.threads : undefined,
    uniqueIds: true,
  });
  for (let left = runs.count(spooled); left > 0; left--) {
    const cut = await runs.next();
    const { worked, taken } = pipeline.take([{ batch: cut, from: 0, to: cut.outcomes.length }]);
    changes.recordHashes(worked.ids, worked.hashes);
    await outputs.write({ shifts: [], rejected: [], worked });
    runs.threads.reuse(taken);
  }
  return {
    summaries: await pipeline.finish(),
    flagged: pipeline.counts.flagged,
    name: pipeline.lastDivisionName,
  };
}

/**
 * Every division's spool runs, in division order, sent to the export threads a few ahead of the
 * one taken (the threads' depth): the next division's first runs are worked while this one's
 * files end. Memory is those few runs and their answers, whatever the divisions.
 */
class WorkedRuns {
  readonly threads: ShiftThreads;
  /** The threads were set up to keep each run's records for its sheet rows (a workbook). */
  readonly sheetRows: boolean;
  readonly #spool: DivisionSpool;
  readonly #pending: Iterator<Buffer>;
  readonly #underWay: Promise<WorkedCut>[] = [];
  /** Runs sent to the threads so far. */
  sent = 0;

  constructor(threads: ShiftThreads, spool: DivisionSpool, divisions: readonly SpooledDivision[]) {
    this.threads = threads;
    this.sheetRows = threads.keepsSpoolSheetRows;
    this.#spool = spool;
    this.#pending = (function* () {
      for (const division of divisions)
        for (const run of spool.runs(division, RUN_BYTES)) yield spool.readRun(division, run);
    })();
    this.#send();
  }

  /** How many runs the division is cut into. */
  count(division: SpooledDivision): number {
    return this.#spool.runs(division, RUN_BYTES).length;
  }

  /** The next run, worked. */
  next(): Promise<WorkedCut> {
    const next = this.#underWay.shift();
    this.#send();
    return next ?? Promise.reject(new Error('no spool run is left to work'));
  }

  #send(): void {
    while (this.#underWay.length < this.threads.depth) {
      const run = this.#pending.next();
      if (run.done === true) return;
      const worked = this.threads.workSpoolLines(run.value);
      this.sent++;
      // Awaited in turn by next(); a failure before then must not count as unhandled.
      worked.catch(() => undefined);
      this.#underWay.push(worked);
    }
  }
}

function pushed(list: ExportFile[], file: ExportFile): ExportFile {
  list.push(file);
  return file;
}

/** The division name of the last record: the one its summaries show. */
function lastName(records: readonly ShiftRecord[]): string | undefined {
  return records[records.length - 1]?.shift.division_name;
}

/**
 * The previous manifest as a division compares with it: a previous split export that did not
 * list the division had none of its rows (its rows are all new); otherwise as it is.
 */
function divisionBefore(before: PreviousManifest, divisionId: number): PreviousManifest {
  if (before === undefined || !('export_id' in before)) return before;
  const listed = before.divisions?.some((d) => d.division_id === divisionId);
  return listed === false ? undefined : before;
}

/** changed for the manifest: true on a first export, null when not counted. */
function changedOf(recorded: Omit<RecordedChanges, 'file'>): boolean | null {
  const changes = recorded.changes;
  if (changes === undefined) return true;
  if (changes === null) return null;
  return changes.added + changes.removed + changes.changed > 0;
}
