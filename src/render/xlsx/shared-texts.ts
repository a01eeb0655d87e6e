// The Shifts sheet's shared strings: the texts that repeat from row to row — a shop's address, its
// name and number, its region and division, the division's managers, a position, a status — are
// written once into the workbook's shared-strings table (xl/sharedStrings.xml) and each cell holds
// its index (`<c t="s"><v>17</v></c>`, ~15 bytes where the text is 20–250). The reader shows the
// same text either way (ECMA-376 part 1, 18.4: the shared string table); openpyxl, LibreOffice and
// Excel read both.
//
// A text gets its index at its first sight, in the order the rows are written: row after row,
// column after column. Rows rendered on export threads are given the indices of their cut's texts
// by the export's thread, which assigns them in that same order (shift-rows-output.ts), so the
// bytes do not depend on which thread rendered which row. The table is bounded (SHARED_TEXT_LIMITS):
// past its bound, and for a text too long to be worth it, a text stays inline in every row.
// Comments, which rarely repeat, are always inline.

/**
 * The Shifts columns whose texts go into the shared-strings table. The users' too: a user works
 * many shifts in a period, and past the table's bound their texts are simply inline.
 */
export const SHARED_TEXT_COLUMN_NAMES = [
  'user_login',
  'user_display_name',
  'user_position',
  'user_org_level',
  'division_external_id',
  'division_name',
  'division_managers',
  'region_name',
  'shop_sap',
  'shop_locality',
  'shop_address',
  'start_utc_offset',
  'finish_utc_offset',
  'location_status',
  'quality_flags',
] as const;

export interface SharedTextLimits {
  /** The most texts in the table. */
  readonly texts: number;
  /** The most UTF-16 code units of all of them together. */
  readonly chars: number;
  /** A longer text stays inline. */
  readonly longest: number;
}

/**
 * 65,536 texts and 4 M characters: a chain's shops, addresses and managers fit many times over, and
 * the table (held until the workbook ends) stays under ~20 MB whatever the report holds.
 */
export const SHARED_TEXT_LIMITS: SharedTextLimits = { texts: 65_536, chars: 4_000_000, longest: 2_000 };

/** A text's index in the shared-strings table, or -1: written inline. */
export interface SharedTextIds {
  idOf(text: string): number;
}

/** Every text inline. */
export const NO_SHARED_TEXTS: SharedTextIds = { idOf: () => -1 };

/** Where the texts go: the workbook's shared-strings table, which gives each its index. */
export interface SharedStringSink {
  add(text: string): number;
}

/** One workbook's shared texts: indices given at first sight while the table has room. */
export class SharedTexts implements SharedTextIds {
  readonly #ids = new Map<string, number>();
  #chars = 0;

  constructor(
    private readonly sink: SharedStringSink,
    private readonly limits: SharedTextLimits = SHARED_TEXT_LIMITS,
  ) {}

  /** Texts in the table. */
  get size(): number {
    return this.#ids.size;
  }

  idOf(text: string): number {
    const known = this.#ids.get(text);
    if (known !== undefined) return known;
    const { texts, chars, longest } = this.limits;
    // Not remembered when refused: past the bound, every new text would be, and memory would grow.
    if (text.length > longest || this.#ids.size >= texts || this.#chars + text.length > chars) return -1;
    const id = this.sink.add(text);
    this.#ids.set(text, id);
    this.#chars += text.length;
    return id;
  }
}

/** A text that has no index yet in a cut's mapping. */
export const UNSEEN = -2;

/**
 * Texts an export thread remembers at most. A thread's texts are mostly the same shops, positions
 * and managers cut after cut; users come and go. 16,384 texts of ~30 characters: ~2 MB a thread.
 */
export const KNOWN_TEXT_LIMIT = 16_384;

/**
 * A text as an export thread labels it (KnownTextIds): its label in the cut last labelled, and the
 * shared-strings index it was given, or UNSEEN.
 */
export interface TextEntry {
  cut: number;
  label: number;
  id: number;
}

/**
 * An export thread's labels of its cuts' texts, kept across cuts with the shared-strings index each
 * text was given, so that the export's thread need not look the same texts up by text cut after
 * cut (cutTextIds): at 300k rows it looked texts up 1.7 million times, hashing each afresh, ~11% of
 * that thread (2026-11-29 profile). The thread looks each text up once a cut, as it did in a map of
 * the cut's own. Bounded: past KNOWN_TEXT_LIMIT texts, it starts again at the next cut. The indices
 * are of one table, numbered by its writer (newSharedTextsNumber): told of another, it starts
 * again, and a cut's remembered indices name the table they are of.
 */
export class KnownTextIds {
  readonly #entries = new Map<string, TextEntry>();
  #cut = 0;
  #table = -1;
  #strings: string[] = [];
  #cutEntries: TextEntry[] = [];

  constructor(private readonly limit = KNOWN_TEXT_LIMIT) {}

  /** Texts remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** Starts labelling a cut: its first text gets label 0. */
  startCut(): void {
    this.#cut++;
    if (this.#entries.size >= this.limit) this.#entries.clear();
    this.#strings = [];
    this.#cutEntries = [];
  }

  /** The label of `text` in the cut: a new one at its first sight in it. */
  label(text: string): number {
    let entry = this.#entries.get(text);
    if (entry === undefined) {
      entry = { cut: 0, label: -1, id: UNSEEN };
      this.#entries.set(text, entry);
    }
    if (entry.cut !== this.#cut) {
      entry.cut = this.#cut;
      entry.label = this.#strings.push(text) - 1;
      this.#cutEntries.push(entry);
    }
    return entry.label;
  }

  /** The cut's label texts in label order, their entries, and the indices remembered for them. */
  endCut(): { strings: string[]; entries: readonly TextEntry[]; known: KnownIds } {
    const entries = this.#cutEntries;
    const ids = new Int32Array(entries.length);
    for (let label = 0; label < entries.length; label++) ids[label] = (entries[label] as TextEntry).id;
    return { strings: this.#strings, entries, known: { table: this.#table, ids } };
  }

  /** Remembers the indices `ids` gives a cut's texts (its `entries`) in `table` (UNSEEN: none given). */
  learn(table: number, entries: readonly TextEntry[], ids: Int32Array): void {
    if (table !== this.#table) {
      // Another table's indices (or none): forgotten, the texts kept.
      for (const entry of this.#entries.values()) entry.id = UNSEEN;
      this.#table = table;
    }
    for (let label = 0; label < ids.length && label < entries.length; label++) {
      const id = ids[label] as number;
      if (id !== UNSEEN) (entries[label] as TextEntry).id = id;
    }
  }
}

/** A cut's label texts' remembered indices (per label, or UNSEEN), and the table they are of. */
export interface KnownIds {
  readonly table: number;
  readonly ids: Int32Array;
}

let lastTable = 0;

/** A number for a new shared-strings table, never given before in this process. */
export function newSharedTextsNumber(): number {
  return ++lastTable;
}

/**
 * The labels of a cut's shared texts: per admitted row, at `offset` of its `stride` labels, one per
 * shared column in the order a row writes them (SHARED_TEXT_SHIFT_COLUMNS), the index of its text
 * in `strings` (-1: none); `keep` says which of the rows from `from` on are written. `known`: per
 * string, the index its thread remembered being given (KnownTextIds), or UNSEEN, in its table.
 */
export interface CutTextLabels {
  readonly labels: Int32Array;
  readonly stride: number;
  readonly offset: number;
  readonly strings: readonly string[];
  readonly from: number;
  readonly keep: Uint8Array;
  readonly known?: KnownIds | undefined;
}

/**
 * The indices in `table` of the texts of a cut's written rows, asked row after row and column after
 * column, as the rows will be written; per string of the cut, -1 when written inline. A text whose
 * index its thread already knows in this table (numbered `number`) is not asked: it has that index
 * for good (a refusal is for good too: the table only fills), so the others get the same indices.
 * Without `number`, every text is asked.
 */
export function cutTextIds(table: SharedTextIds, cut: CutTextLabels, number?: number): Int32Array {
  const { labels, stride, offset, strings, from, keep, known } = cut;
  const ids =
    number !== undefined && known?.table === number && known.ids.length === strings.length
      ? Int32Array.from(known.ids)
      : new Int32Array(strings.length).fill(UNSEEN);
  const columns = SHARED_TEXT_COLUMN_NAMES.length;
  for (let k = 0; k < keep.length; k++) {
    if (keep[k] !== 1) continue;
    const base = (from + k) * stride + offset;
    for (let c = 0; c < columns; c++) {
      const label = labels[base + c] as number;
      if (label >= 0 && ids[label] === UNSEEN) ids[label] = table.idOf(strings[label] as string);
    }
  }
  return ids;
}

/** A written row's text has no index: the cut's labels and the export's thread disagree (a bug). */
export class UnlabelledTextError extends Error {}

/**
 * The shared-strings indices of a cut's written rows' texts, row after row (shift-rows-xml.ts,
 * RowTextIds), on the thread that keeps the rows: `labels` holds, per admitted row, its shared
 * texts' labels (-1: none), `columns` a row; `ids`, each label's index as cutTextIds gave it; `keep`
 * says which of the admitted rows from `from` on are written.
 */
export function rowTextIds(labels: Int32Array, ids: Int32Array, from: number, keep: Uint8Array): Int32Array {
  const columns = SHARED_TEXT_COLUMN_NAMES.length;
  let written = 0;
  for (let k = 0; k < keep.length; k++) if (keep[k] === 1) written++;
  const rowIds = new Int32Array(written * columns);
  let at = 0;
  for (let k = 0; k < keep.length; k++) {
    if (keep[k] !== 1) continue;
    const base = (from + k) * columns;
    for (let c = 0; c < columns; c++) {
      const label = labels[base + c] as number;
      const id = label < 0 ? -1 : ids[label];
      if (id === undefined || id === UNSEEN) throw new UnlabelledTextError('no index for a text of the cut');
      rowIds[at++] = id;
    }
  }
  return rowIds;
}
