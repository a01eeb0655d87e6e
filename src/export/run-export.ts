// The use case: export one period. runExport reads as its table of contents — the divisions, the
// report streamed through the pipeline into the outputs (the table writers and the change
// recorder, behind one fan-out), the summaries, the changes since the previous export and the
// previous period's figures (before the outputs end: the workbook's Overview shows them), the
// manifest published last — and returns
// what was published. ConfiguredExport wires it from configuration for `shift-export run`, `demo`
// and the queue worker.

import { tmpdir } from 'node:os';
import { ChangeRecorder, previousManifest } from '../changes/change-recorder.js';
import type { ExportFormat } from '../domain/export-format.js';
import type { Destination } from '../destinations/destination.js';
import type { Period } from '../domain/period.js';
import type { RowFilter } from '../domain/row-filter.js';
import { AbortedError } from '../errors.js';
import type { Logger } from '../logger.js';
import { divisionDirectory } from '../pipeline/enrich.js';
import type { GroupMemory } from '../pipeline/group-spill.js';
import type { Manifest } from '../render/manifest.js';
import { TempFolder } from '../temp-file.js';
import type { ReadProgress } from '../wfm/report-reader.js';
import { BatchFanOut } from './batch-fan-out.js';
import { changeRecording } from './change-recording.js';
import { DivisionSplit } from './division-split.js';
import { openExportCore, type ExportCore } from './export-core.js';
import { newExportId } from './export-id.js';
import { ExportFiles } from './export-files.js';
import type { ExportSettings } from './export-settings.js';
import { openTableOutputs } from './open-table-outputs.js';
import { progressReport, type ProgressListener } from './progress.js';
import { publishExport } from './publish-export.js';
import { readPreviousPeriod } from './read-previous-period.js';
import type { ShiftSource } from './shift-source.js';
import { throwIfAborted } from './throw-if-aborted.js';
import { DEFAULT_REPORT_LANGUAGE, type ReportLanguage } from '../i18n/report-language.js';
import { divisionLanguages } from './division-languages.js';

/** What one export covers: a period, in the formats asked for, of some divisions or all. */
export interface ExportScope {
  readonly period: Period;
  readonly formats: readonly ExportFormat[];
  /** Only these divisions, regions, shops; the other rows are counted as filtered_out. */
  readonly filter?: RowFilter;
  /**
   * `division`: the files of each division in `divisions/<division_id>/` (division-split.ts), and
   * only rejected.csv and manifest.json at the top. The report is still read once.
   */
  readonly split?: 'division';
  /**
   * The language of the export's workbooks (a definition's `lang`); default settings.language,
   * else en. CSV, Parquet, file names and the manifest's keys are the same in every language.
   */
  readonly lang?: ReportLanguage;
  /**
   * `division-managers` (a split export mailed to each division's managers): each division's
   * workbook is also written in every further language its managers read (shifts.<lang>.xlsx).
   */
  readonly readers?: 'division-managers';
}

export interface ExportDependencies {
  readonly source: ShiftSource;
  readonly destination: Destination;
  readonly settings: ExportSettings;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly signal?: AbortSignal;
  readonly onProgress?: ProgressListener;
  /** Given by the queue so that retries of one job are told apart; generated otherwise. */
  readonly exportId?: string;
}

export interface ExportResult {
  readonly manifest: Manifest;
  /** Where the export is now visible (folder or s3:// URL). */
  readonly location: string;
  readonly manifestLocation: string;
  readonly durationMs: number;
  /** The report read: requests, retries, bytes on the wire and decoded (undefined: never started). */
  readonly upstream: ReadProgress | undefined;
}

export async function runExport(scope: ExportScope, deps: ExportDependencies): Promise<ExportResult> {
  const { period, formats } = scope;
  const { source, destination, signal } = deps;
  const settings = scope.lang === undefined ? deps.settings : { ...deps.settings, language: scope.lang };
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  const exportId = deps.exportId ?? newExportId(startedAt);
  const log = deps.logger.child({ exportId, period: `${period.from}..${period.to}` });
  const report = progressReport(deps.onProgress);

  throwIfAborted(signal);
  report({ phase: 'divisions' });
  const divisionList = await source.listDivisions({ fields: ['dirs'], signal });
  const started = { divisions: divisionList.length, formats, destination: destination.description };
  log.info(started, 'export started');

  const publication = await destination.begin(period, exportId, signal);
  const files = new ExportFiles(publication);
  const changes = new ChangeRecorder({ logger: log });
  // Spilled statistics: read back while the summaries are written, removed however the export ends.
  const temp = new TempFolder(settings.tempDir ?? tmpdir());
  let outputs: BatchFanOut | undefined;
  let core: ExportCore | undefined;
  try {
    const divisions = divisionDirectory(divisionList);
    core = openExportCore(source, {
      period,
      formats,
      filter: scope.filter,
      split: scope.split,
      divisions,
      groupMemory: groupMemory(settings, temp),
      settings,
    });
    const setup = { files, settings, divisions, period, exportId, startedAt, log };
    const split =
      scope.split === 'division'
        ? new DivisionSplit({
            formats,
            setup,
            files,
            publication,
            previous: destination,
            readPrevious: () => previousManifest(destination, period),
            temp,
            // Measured as the whole export's: the divisions' rows are worked on its threads.
            groupMemory: core.groupMemory,
            threads: core.threads,
            signal,
            moreLanguages:
              scope.readers === 'division-managers'
                ? divisionLanguages(divisionList, settings.language ?? DEFAULT_REPORT_LANGUAGE)
                : undefined,
          })
        : undefined;
    const tables = split === undefined ? await openTableOutputs(formats, setup) : split.outputs();
    outputs = new BatchFanOut([changeRecording(changes), ...tables]);

    report({ phase: 'fetching' });
    const upstream = await core.stream(outputs, { period, signal, report });
    // Split by division, the threads work the divisions' files too: they end after outputs.finish.
    await core.streamed();

    report({ phase: 'summaries' });
    const counts = core.counts;
    const summaries = await core.finish();
    // Before the outputs end: the workbook's Overview shows the rows changed since the previous export.
    const { file: rowHashes, ...changed } = await changes.conclude(publication, destination, period);
    // The Overview compares with the previous period; an export without a workbook does not look.
    const previousPeriod = formats.includes('xlsx')
      ? await readPreviousPeriod(destination, period, log)
      : undefined;
    const ending = {
      summaries,
      counts,
      changes: changed,
      ...(previousPeriod === undefined ? {} : { previousPeriod }),
    };
    await outputs.finish(ending);
    await core.close();

    report({ phase: 'publishing' });
    const facts = { exportId, period, startedAt, settings, ending, rowHashes, split: split?.result };
    const published = await publishExport(files, facts, signal);
    report({ phase: 'done' });
    const durationMs = now().getTime() - startedAt.getTime();
    // Where the statistics were counted, when not on the export's thread: an operator's check of the setting.
    const statistics = core.statisticsThread ? { statisticsThread: true } : {};
    log.info(
      { counts, upstream, location: published.location, durationMs, ...statistics },
      'export published',
    );
    return { ...published, durationMs, upstream };
  } catch (error) {
    await outputs?.abort(error);
    await files.abandon(error, log);
    throw signal?.aborted ? new AbortedError('the export was aborted', error) : error;
  } finally {
    await core?.close();
    await changes.dispose();
    temp.dispose();
  }
}

/** EXPORT_MEMORY_MB for the user and shop groups, spilling to `temp`; none: all in memory. */
function groupMemory(settings: ExportSettings, temp: TempFolder): GroupMemory | undefined {
  const budgetBytes = settings.memoryBudgetBytes;
  return budgetBytes === undefined ? undefined : { budgetBytes, temp };
}
