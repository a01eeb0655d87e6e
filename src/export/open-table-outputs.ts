// The table writers of an export, by the formats it asks for: CSV (shifts.csv, rejected.csv, the
// summaries), the workbook (shifts.xlsx), Parquet (shifts.parquet), and the shift rows of
// shifts.csv and the Shifts sheet, written through one ShiftRowsOutput that keeps their rows in
// report order, whichever thread rendered them. A new kind of output (a workbook per division...)
// is opened here: the fan-out gives it every batch, and runExport does not change.

import type { ExportFormat } from '../domain/export-format.js';
import { CsvTablesOutput, EXPORT_CSV_TABLES, type CsvTables } from './csv-tables-output.js';
import { ShiftRowsOutput } from './shift-rows-output.js';
import type { OutputSetup, TableOutput } from './table-output.js';
import type { WorkbookOutput as WorkbookOutputType } from './workbook-output.js';

/**
 * Opens the outputs `formats` ask for. Their files are opened in the order the manifest lists
 * them (csv, xlsx, parquet; the summaries at the end); the outputs come back in the order they
 * get each batch and end — ShiftRowsOutput before the CSV and workbook outputs, which end the
 * files it writes into.
 */
export async function openTableOutputs(
  formats: readonly ExportFormat[],
  setup: OutputSetup,
  csvTables: CsvTables = EXPORT_CSV_TABLES,
): Promise<TableOutput[]> {
  const opened: TableOutput[] = [];
  try {
    const csv = formats.includes('csv')
      ? new CsvTablesOutput(setup.files, setup.settings, csvTables)
      : undefined;
    if (csv !== undefined) opened.push(csv);
    // Loaded only when wanted: exceljs costs a CSV-only export memory and start-up time. One
    // workbook in the export's language, and one in each further language its readers read.
    const workbooks: WorkbookOutputType[] = [];
    if (formats.includes('xlsx')) {
      const { WorkbookOutput } = await import('./workbook-output.js');
      for (const language of [undefined, ...(setup.moreLanguages ?? [])]) {
        const workbook = new WorkbookOutput(setup, language);
        workbooks.push(workbook);
        opened.push(workbook);
      }
    }
    // Loaded only when wanted, as exceljs is.
    const parquet = formats.includes('parquet')
      ? new (await import('./parquet-output.js')).ParquetOutput(setup.files)
      : undefined;
    const shiftRows = new ShiftRowsOutput({
      csv: csv?.shifts,
      workbooks: workbooks.map((w) => w.workbook),
      log: setup.log,
    });
    return [...(parquet === undefined ? [] : [parquet]), shiftRows, ...opened];
  } catch (error) {
    // The workbook has a temp file, and must not end as a file that looks whole.
    await Promise.all(opened.map((output) => output.abort(error).catch(() => undefined)));
    throw error;
  }
}
