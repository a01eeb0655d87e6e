// The period at a glance, as a delivery e-mail shows it: the headline figures, the regions of the
// division (or the divisions of the whole export) ranked by start match rate beside the highlight
// threshold, the five shops with the lowest start match rate, and the change of every rate against
// the same definition's previous period, in percentage points. Read from manifests alone: this
// export's, and the previous period's as published in the same destination (findPreviousPeriod in
// render/previous-period.ts), so the mail never reads the upstream a second time and keeps no
// state outside the destination. Pure.

import type { ManifestShopRate } from '../render/manifest.js';
import type { MailManifest, MailManifestDivision } from './mail-manifest.js';

/** The previous period of the definition, as published, when its manifest could be read. */
export interface PreviousPublished {
  readonly period: { readonly from: string; readonly to: string };
  readonly manifest: MailManifest;
}

export type FigureKey =
  | 'shifts'
  | 'hours'
  | 'startMatchRate'
  | 'finishMatchRate'
  | 'autoFinishedShare'
  | 'rowsRejected'
  | 'rowsRejectedWholeExport';

export interface GlanceFigure {
  readonly key: FigureKey;
  readonly kind: 'count' | 'hours' | 'rate';
  /** null: not there (a rate with nothing checked). */
  readonly value: number | null;
  /** A rate's change against the previous period (a difference of shares); null: not comparable. */
  readonly change: number | null;
}

/** A region of the division, or a division of the whole export. */
export interface GlanceGroup {
  readonly id: number;
  readonly name: string;
  readonly shifts: number;
  readonly start: number | null;
  readonly finish: number | null;
  readonly change: number | null;
  /** Its start match rate is under the threshold. */
  readonly below: boolean;
}

export type Comparison =
  /** No manifest of the previous period: the first export of the definition. */
  | { readonly kind: 'first' }
  /** The previous period is published, but without figures for this mail (an older release's manifest, a division with no shifts then). */
  | { readonly kind: 'no_figures'; readonly period: PreviousPublished['period'] }
  | { readonly kind: 'against'; readonly period: PreviousPublished['period'] };

export interface Glance {
  readonly figures: readonly GlanceFigure[];
  /** `regions` of a division's mail, `divisions` of the whole export's. */
  readonly groupsOf: 'regions' | 'divisions';
  /** Ranked by start match rate, highest first; groups with no rate last. Empty: none listed. */
  readonly groups: readonly GlanceGroup[];
  /** Undefined: the manifest does not list them (an older release). */
  readonly shops: readonly ManifestShopRate[] | undefined;
  /** The start match rate under which a group is marked; undefined when the manifest does not say. */
  readonly threshold: number | undefined;
  readonly comparison: Comparison;
}

type Statistics = Readonly<Record<string, number | null>>;

interface GroupRates {
  readonly id: number;
  readonly name: string;
  readonly shifts: number;
  readonly start_match_rate: number | null;
  readonly finish_match_rate: number | null;
}

function stat(statistics: Statistics | undefined, name: string): number | null {
  const value = statistics?.[name];
  return typeof value === 'number' ? value : null;
}

function difference(now: number | null, before: number | null | undefined): number | null {
  return now === null || before === null || before === undefined ? null : now - before;
}

function ranked(
  groups: readonly GroupRates[],
  before: readonly GroupRates[] | undefined,
  threshold: number | undefined,
): GlanceGroup[] {
  const previous = new Map((before ?? []).map((g) => [g.id, g.start_match_rate]));
  return groups
    .map((g) => ({
      id: g.id,
      name: g.name,
      shifts: g.shifts,
      start: g.start_match_rate,
      finish: g.finish_match_rate,
      change: difference(g.start_match_rate, previous.get(g.id)),
      below: threshold !== undefined && g.start_match_rate !== null && g.start_match_rate < threshold,
    }))
    .sort((a, b) => (b.start ?? -1) - (a.start ?? -1) || a.name.localeCompare(b.name) || a.id - b.id);
}

function rates(
  figures: { start: number | null; finish: number | null; auto: number | null },
  before: Statistics | undefined,
) {
  return [
    {
      key: 'startMatchRate',
      kind: 'rate',
      value: figures.start,
      change: difference(figures.start, before && stat(before, 'start_match_rate')),
    },
    {
      key: 'finishMatchRate',
      kind: 'rate',
      value: figures.finish,
      change: difference(figures.finish, before && stat(before, 'finish_match_rate')),
    },
    {
      key: 'autoFinishedShare',
      kind: 'rate',
      value: figures.auto,
      change: difference(figures.auto, before && stat(before, 'auto_finished_rate')),
    },
  ] as const satisfies readonly GlanceFigure[];
}

/** The glance of a division's mail (`division` set) or of the whole export's (null). */
export function periodGlance(
  manifest: MailManifest,
  division: MailManifestDivision | null,
  previous: PreviousPublished | undefined,
): Glance {
  const threshold = manifest.match_rate_threshold;
  if (division === null) {
    const s = manifest.statistics;
    const before = previous?.manifest.statistics;
    const comparison: Comparison =
      previous === undefined ? { kind: 'first' } : { kind: 'against', period: previous.period };
    return {
      figures: [
        { key: 'shifts', kind: 'count', value: manifest.counts.exported, change: null },
        { key: 'hours', kind: 'hours', value: stat(s, 'hours'), change: null },
        ...rates(
          {
            start: stat(s, 'start_match_rate'),
            finish: stat(s, 'finish_match_rate'),
            auto: stat(s, 'auto_finished_rate'),
          },
          before,
        ),
        { key: 'rowsRejected', kind: 'count', value: manifest.counts.rejected, change: null },
      ],
      groupsOf: 'divisions',
      groups: ranked(
        (manifest.division_rates ?? []).map((d) => ({ ...d, id: d.division_id, name: d.division_name })),
        previous?.manifest.division_rates?.map((d) => ({ ...d, id: d.division_id, name: d.division_name })),
        threshold,
      ),
      shops: manifest.lowest_shops,
      threshold,
      comparison,
    };
  }
  const s = division.statistics;
  const then = previous?.manifest.divisions?.find((d) => d.division_id === division.division_id);
  const comparable = then?.statistics !== undefined;
  const comparison: Comparison =
    previous === undefined
      ? { kind: 'first' }
      : comparable
        ? { kind: 'against', period: previous.period }
        : { kind: 'no_figures', period: previous.period };
  return {
    figures: [
      { key: 'shifts', kind: 'count', value: division.shifts, change: null },
      ...(s === undefined
        ? []
        : [
            { key: 'hours', kind: 'hours', value: stat(s, 'hours'), change: null } as const,
            ...rates(
              {
                start: stat(s, 'start_match_rate'),
                finish: stat(s, 'finish_match_rate'),
                auto: stat(s, 'auto_finished_rate'),
              },
              comparable ? then.statistics : undefined,
            ),
          ]),
      // Rejected rows cannot be placed in a division: the count is the whole export's.
      { key: 'rowsRejectedWholeExport', kind: 'count', value: manifest.counts.rejected, change: null },
    ],
    groupsOf: 'regions',
    groups: ranked(
      (division.region_rates ?? []).map((r) => ({ ...r, id: r.region_id, name: r.region_name })),
      comparable
        ? then.region_rates?.map((r) => ({ ...r, id: r.region_id, name: r.region_name }))
        : undefined,
      threshold,
    ),
    shops: division.lowest_shops,
    threshold,
    comparison,
  };
}
