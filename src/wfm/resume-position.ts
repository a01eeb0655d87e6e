// Where a report read stands, so that a broken read can resume without losing or repeating rows:
// which parsed rows may be handed out now, the id of the last one, whether ids came in order, and
// whether the upstream honoured `id=gt.` (see "Resuming" in report-reader.ts).
//
// A row whose id cannot be read (an invalid row) gives no position: rows after the last readable
// id are held back until the next readable id proves where they stand (or the answer ends), and
// dropped on a break, since the resumed answer sends them again. A long run of such rows is handed
// out anyway and marks the position blind (a later resume would be unsafe), so holding cannot grow
// without bound. Adjacent rows with the same id (a row sent twice) are counted as repeats: they do
// not break the order and do not count against a page's limit.

import type { PagingMode } from '../config/wfm-config.js';
import {
  WfmPagingUnsupportedError,
  WfmResumeUnsafeError,
  type WfmError,
  type WfmErrorContext,
} from './wfm-error.js';
import type { ReportCursor } from './wfm-query.js';

/** Rows without a readable id held back at most; beyond it they are handed out, and resuming by id is off. */
export const MAX_HELD_ROWS = 10_000;

/** What the read knows about where the caller stands. */
export interface Position {
  /** Id of the last row handed out that had a readable id. */
  lastId: number | undefined;
  /** Every readable id so far was >= the one before. */
  ascending: boolean;
  /** Rows were handed out whose position is unknown (held-back limit reached). */
  blind: boolean;
  /** Offset paging: first row of the current page, and rows of it already handed out. */
  pageStart: number;
  pageDone: number;
}
export function idOf(row: unknown): number | undefined {
  if (typeof row !== 'object' || row === null) return undefined;
  const id = (row as { id?: unknown }).id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : undefined;
}
/** Rows from..to of one parsed batch: what the keeper hands out, or holds back. */
export interface RowRange<B> {
  readonly batch: B;
  readonly from: number;
  readonly to: number;
}

/**
 * The ids of parsed rows, as the keeper reads them: NaN where a row has no readable id. `ids`:
 * where to write them, one per row.
 */
export function idsOf(
  rows: readonly unknown[],
  ids: Float64Array = new Float64Array(rows.length),
): Float64Array {
  for (let i = 0; i < rows.length; i++) ids[i] = idOf(rows[i]) ?? Number.NaN;
  return ids;
}

/**
 * Decides which parsed rows of one answer can be handed out now, keeping the resume position
 * exact (see "Resuming" above), and checks that the upstream honoured `id=gt.`. It reads only the
 * rows' ids, in report order, from whichever thread parsed them, and hands out ranges of rows.
 */
export class ResumePositionKeeper<B> {
  readonly #byId: boolean;
  readonly #afterId: number | undefined;
  readonly #position: Position;
  readonly #context: WfmErrorContext;
  readonly #keyset: boolean;
  /** Rows held back, in order. */
  #held: RowRange<B>[] = [];
  #heldRows = 0;
  #sawId = false;
  #previousId = Number.NaN;
  /** Rows whose id equals the id of the row just before them. */
  repeats = 0;

  constructor(mode: PagingMode, cursor: ReportCursor, position: Position, context: WfmErrorContext) {
    this.#byId = mode !== 'offset';
    this.#keyset = mode === 'keyset';
    this.#afterId = cursor.afterId;
    this.#position = position;
    this.#context = context;
  }

  /** Rows held back now: dropped when the answer breaks, since the resumed answer sends them again. */
  get heldRows(): number {
    return this.#heldRows;
  }

  /** Takes the next parsed batch (`ids`: NaN where unreadable); returns the rows that go out now. */
  accept(ids: ArrayLike<number>, batch: B): RowRange<B>[] {
    const n = ids.length;
    const position = this.#position;
    let lastWithId = -1;
    let lastId = position.lastId;
    for (let i = 0; i < n; i++) {
      const id = ids[i] as number;
      if (id === this.#previousId) this.repeats++;
      this.#previousId = id;
      if (Number.isNaN(id) || !this.#byId) continue;
      if (this.#afterId !== undefined && id <= this.#afterId) throw this.#filterIgnored(id);
      if (lastId !== undefined && id < lastId) position.ascending = false;
      lastId = id;
      lastWithId = i;
    }
    if (n === 0) return [];
    if (!this.#byId) return [{ batch, from: 0, to: n }];
    if (lastWithId < 0) {
      this.#hold({ batch, from: 0, to: n });
      if (this.#heldRows <= MAX_HELD_ROWS) return [];
      position.blind = true;
      return this.#takeHeld();
    }
    this.#sawId = true;
    position.lastId = lastId;
    position.blind = false;
    const out = this.#takeHeld();
    out.push({ batch, from: 0, to: lastWithId + 1 });
    if (lastWithId + 1 < n) this.#hold({ batch, from: lastWithId + 1, to: n });
    return out;
  }

  /**
   * At the end of a complete answer: the held rows belong to it and go out — unless a full keyset
   * page continues with `id=gt.<last id>`, which sends them again first.
   */
  finish(received: number, limit: number | undefined): RowRange<B>[] {
    const held = this.#takeHeld();
    if (!this.#keyset || limit === undefined || received < limit) return held;
    if (!this.#sawId || this.#position.blind) {
      throw new WfmPagingUnsupportedError(
        'a full page without a readable id: keyset paging cannot continue',
        this.#context,
      );
    }
    return [];
  }

  #hold(range: RowRange<B>): void {
    this.#held.push(range);
    this.#heldRows += range.to - range.from;
  }

  #takeHeld(): RowRange<B>[] {
    const held = this.#held;
    this.#held = [];
    this.#heldRows = 0;
    return held;
  }

  #filterIgnored(id: number): WfmError {
    const detail = `id ${id} in an answer to id=gt.${this.#afterId} (the filter is ignored)`;
    return this.#keyset
      ? new WfmPagingUnsupportedError(detail, this.#context)
      : new WfmResumeUnsafeError(detail, this.#context);
  }
}
