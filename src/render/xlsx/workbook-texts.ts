// The workbook's texts of a declared column in the reader's language: its header (the same on
// every sheet) and its description on the About sheet (which depends on the sheet: a division's id
// means something else on By day than on By region). Columns are looked up by their stable name; the
// catalog test holds every declared column to an entry in every language, so the English
// declaration below is a last resort that no shipped catalog reaches.

import type { Column } from '../../domain/column.js';
import type { WorkbookMessages } from '../../i18n/workbook/workbook-messages.js';

/** Where a column is described: the Shifts or Rejected sheet, a summary's keys, or the statistics. */
export type DescribedTable =
  'shifts' | 'rejected' | 'statistics' | 'byDivision' | 'byDay' | 'byRegion' | 'byShop' | 'byUser';

type Texts = Readonly<Record<string, string>>;

export function columnHeader(
  messages: WorkbookMessages,
  column: Pick<Column<never>, 'name' | 'header'>,
): string {
  return (messages.headers as Texts)[column.name] ?? column.header;
}

export function columnDescription(
  messages: WorkbookMessages,
  table: DescribedTable,
  column: Pick<Column<never>, 'name' | 'description'>,
): string {
  const { descriptions } = messages;
  const texts: Texts =
    table === 'shifts' || table === 'rejected' || table === 'statistics'
      ? descriptions[table]
      : descriptions.summaryKeys[table];
  return texts[column.name] ?? column.description;
}
