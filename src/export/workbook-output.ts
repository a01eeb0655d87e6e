// The workbook of an export (format xlsx): shifts.xlsx. Its Shifts sheets are written through
// ShiftRowsOutput, which may have them rendered on export threads; this output keeps the rejected
// rows for the Rejected sheet and, at the end, writes the summary sheets, About and the Overview
// (which shows the rows changed since the previous export), and completes the file. Loaded only
// when an export asks for it: exceljs costs a CSV-only export memory and start-up time.

import { CONTENT_TYPES } from '../destinations/content-headers.js';
import { ShiftsWorkbookWriter } from '../render/xlsx/shifts-workbook-writer.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import type { ExportFile } from './export-files.js';
import type { ExportBatch, ExportEnding, OutputSetup, TableOutput } from './table-output.js';

export class WorkbookOutput implements TableOutput {
  /** ShiftRowsOutput writes the Shifts sheets into it. */
  readonly workbook: ShiftsWorkbookWriter;
  readonly #file: ExportFile;
  readonly #setup: OutputSetup;

  /** Opens shifts.xlsx. */
  constructor(setup: OutputSetup) {
    this.#setup = setup;
    this.#file = setup.files.open('shifts.xlsx', CONTENT_TYPES.xlsx);
    this.workbook = new ShiftsWorkbookWriter(this.#file.stream, {
      createdAt: setup.startedAt,
      creator: `${TOOL_NAME} ${TOOL_VERSION}`,
      matchRateThreshold: setup.settings.matchRateThreshold,
      ...(setup.settings.language === undefined ? {} : { language: setup.settings.language }),
      // A division's workbook (split by division): its manager compares regions, not divisions.
      ...(setup.divisionId === undefined ? {} : { chartBy: 'region' as const }),
    });
  }

  async write(batch: ExportBatch): Promise<void> {
    for (const row of batch.rejected) {
      const wait = this.workbook.addRejected(row);
      if (wait) await wait;
    }
  }

  async finish({ summaries, counts, changes }: ExportEnding): Promise<void> {
    const { period, startedAt, settings, exportId } = this.#setup;
    await this.workbook.finish(summaries, {
      period,
      generatedAt: startedAt,
      sourceBaseUrl: settings.sourceBaseUrl,
      counts,
      exportId,
      toolVersion: TOOL_VERSION,
      changes,
    });
    this.#file.rows = counts.exported;
  }

  /** Stops the workbook (its file fails rather than ending short) and removes its temp file. */
  abort(error: unknown): Promise<void> {
    return this.workbook.abort(error);
  }
}
