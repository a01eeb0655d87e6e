// A row the pipeline could not place (see the validate stage), kept with its reason and raw JSON.

import type { Column } from './column.js';

export interface RejectedRow {
  /** The row's id when it had an integer one. */
  readonly id: number | null;
  /** `field: message` for each problem, joined by "; ". */
  readonly reason: string;
  /** The row as JSON text, exactly re-serialised from what was received. */
  readonly rawJson: string;
}

export const REJECTED_COLUMNS: readonly Column<RejectedRow>[] = [
  {
    name: 'shift_id',
    header: 'Shift ID',
    kind: 'integer',
    width: 10,
    description: 'id of the row, when it had an integer one.',
    value: (r) => r.id,
  },
  {
    name: 'reason',
    header: 'Reason',
    kind: 'text',
    width: 60,
    description: 'Why the row could not be exported: field and message.',
    value: (r) => r.reason,
  },
  {
    name: 'raw_json',
    header: 'Raw JSON',
    kind: 'text',
    width: 80,
    description: 'The row as received, as JSON.',
    value: (r) => r.rawJson,
  },
];
