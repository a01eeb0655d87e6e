// How many rows an export saw and what became of them: the pipeline counts them, and the manifest's
// `counts` and the workbook's About sheet show them, with these exact names.

export interface ExportCounts {
  /** Rows received from the source. */
  readonly fetched: number;
  readonly exported: number;
  readonly rejected: number;
  readonly duplicates: number;
  readonly outside_window: number;
  /** Exported rows with at least one quality flag. */
  readonly flagged: number;
  /** Rows outside the export's filter (divisions, regions, shops); present only when it has one. */
  readonly filtered_out?: number;
}
