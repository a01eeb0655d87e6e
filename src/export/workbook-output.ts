// A workbook of an export (format xlsx): shifts.xlsx in the export's language, and, for a division
// whose managers read other languages, shifts.<lang>.xlsx in each of those. Its Shifts sheets are written through
// ShiftRowsOutput, which may have them rendered on export threads; this output keeps the rejected
// rows for the Rejected sheet and, at the end, writes the summary sheets, About and the Overview
// (which shows the rows changed since the previous export, and the rates' changes since the previous
// period), and completes the file. Loaded only
// when an export asks for it: exceljs costs a CSV-only export memory and start-up time.

import { CONTENT_TYPES } from '../destinations/content-headers.js';
import { overviewComparison } from '../render/xlsx/overview-comparison.js';
import { ShiftsWorkbookWriter } from '../render/xlsx/shifts-workbook-writer.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { DEFAULT_REPORT_LANGUAGE, type ReportLanguage } from '../i18n/report-language.js';
import type { ExportFile } from './export-files.js';
import type { ExportBatch, ExportEnding, OutputSetup, TableOutput } from './table-output.js';

export class WorkbookOutput implements TableOutput {
  /** ShiftRowsOutput writes the Shifts sheets into it. */
  readonly workbook: ShiftsWorkbookWriter;
  readonly #file: ExportFile;
  readonly #setup: OutputSetup;

  /**
   * Opens shifts.xlsx, in the export's language; given another `language`, shifts.<language>.xlsx
   * in that one. The manifest lists each with its `lang`.
   */
  constructor(setup: OutputSetup, language?: ReportLanguage) {
    this.#setup = setup;
    const primary = setup.settings.language ?? DEFAULT_REPORT_LANGUAGE;
    const lang = language ?? primary;
    this.#file = setup.files.open(workbookFileName(lang, primary), CONTENT_TYPES.xlsx);
    this.#file.lang = lang;
    const { divisionId } = setup;
    // Its name as the metadata has it; a division missing there is named by its id.
    const divisionName =
      divisionId === undefined ? undefined : (setup.divisions.get(divisionId)?.name ?? String(divisionId));
    this.workbook = new ShiftsWorkbookWriter(this.#file.stream, {
      createdAt: setup.startedAt,
      creator: `${TOOL_NAME} ${TOOL_VERSION}`,
      matchRateThreshold: setup.settings.matchRateThreshold,
      language: lang,
      period: setup.period,
      // A division's workbook (split by division): its manager compares regions, not divisions.
      ...(divisionName === undefined ? {} : { chartBy: 'region' as const, divisionName }),
    });
  }

  async write(batch: ExportBatch): Promise<void> {
    for (const row of batch.rejected) {
      const wait = this.workbook.addRejected(row);
      if (wait) await wait;
    }
  }

  async finish({ summaries, counts, changes, previousPeriod }: ExportEnding): Promise<void> {
    const { period, startedAt, settings, exportId, divisionId } = this.#setup;
    // A division's workbook compares with the division's entry of the previous manifest.
    const comparison =
      previousPeriod === undefined ? undefined : overviewComparison(previousPeriod ?? undefined, divisionId);
    await this.workbook.finish(summaries, {
      period,
      generatedAt: startedAt,
      sourceBaseUrl: settings.sourceBaseUrl,
      counts,
      exportId,
      toolVersion: TOOL_VERSION,
      changes,
      ...(comparison === undefined ? {} : { comparison }),
    });
    this.#file.rows = counts.exported;
  }

  /** Stops the workbook (its file fails rather than ending short) and removes its temp file. */
  abort(error: unknown): Promise<void> {
    return this.workbook.abort(error);
  }
}

/**
 * The name of the workbook in `language` of an export written in `primary`: shifts.xlsx for the
 * export's own language (the name automation reads), shifts.<language>.xlsx (ASCII: shifts.ru.xlsx,
 * shifts.pt-BR.xlsx) for another.
 */
export function workbookFileName(language: ReportLanguage, primary: ReportLanguage): string {
  return language === primary ? 'shifts.xlsx' : `shifts.${language}.xlsx`;
}
