// Owns what a delivery e-mail says, as a type every language's catalog must fill: a catalog that
// lacks a text, or has one too many, fails `tsc`, and a test holds each plural message to its
// language's CLDR categories. `{name}` placeholders are filled by fill() (text-format.ts) with
// values already formatted for the reader (numbers, rates, dates through Intl) and, where they
// come from the upstream, already cleaned and (in the HTML) escaped by the composer.

import type { PluralMessage } from '../plural.js';

/** Why someone got no mail (src/notify/mail-recipients.ts, SkipReason), as a reader or log says it. */
export interface SkipReasonTexts {
  readonly inactive: string;
  readonly invite_not_accepted: string;
  readonly login_not_an_address: string;
  readonly not_an_address: string;
  readonly division_not_found: string;
  readonly no_recipient: string;
}

export interface MailMessages {
  /** `{definition}: {where}, {period}`, and `{summary}` in brackets when there is one. */
  readonly subject: string;
  readonly subjectWithSummary: string;
  /** The subject's start match figure: `{rate}`. */
  readonly subjectStart: string;
  /** Counted shifts: `{n}` formatted. */
  readonly shifts: PluralMessage;
  /** Counted rows of a file. */
  readonly rows: PluralMessage;
  /** Where the whole export's mail is from (no division). */
  readonly allDivisions: string;
  /** A division the manifest names with an empty name: `{id}`. */
  readonly unnamedDivision: string;
  /** `{definition}: {period}`: the HTML's title and heading, the text's first line. */
  readonly title: string;
  readonly divisionLabel: string;
  readonly periodLabel: string;

  readonly headlineHeading: string;
  readonly labels: {
    readonly shifts: string;
    readonly hours: string;
    readonly startMatchRate: string;
    readonly finishMatchRate: string;
    readonly autoFinishedShare: string;
    readonly rowsRejected: string;
    /** A division's mail: rejected rows cannot be placed in a division, so they are the export's. */
    readonly rowsRejectedWholeExport: string;
  };
  /** A rate or figure that is not there (nothing was checked): stands alone in a cell. */
  readonly notAvailable: string;
  /** A change in percentage points: `{points}` is signed, one decimal (+1.2, −0,4). */
  readonly percentPoints: string;
  /** Column and line label of the change against the previous period. */
  readonly changeLabel: string;
  /** Under the figures: `{period}` is the previous period. */
  readonly comparedWith: string;
  /** The first export of the definition: there is no previous period's manifest. */
  readonly firstExport: string;
  /** The previous period's manifest is there but has no figures for this mail: `{period}`. */
  readonly noPreviousFigures: string;

  readonly regionsHeading: string;
  readonly divisionsHeading: string;
  /** `{below}` of `{total}` (numbers) under the threshold `{rate}`. */
  readonly belowThreshold: string;
  readonly columns: {
    readonly region: string;
    readonly division: string;
    readonly shop: string;
    readonly startMatch: string;
    readonly finishMatch: string;
    readonly shifts: string;
  };
  /** Written beside a rate under the threshold, so the meaning never rests on a colour. */
  readonly belowMark: string;
  readonly shopsHeading: string;
  readonly noShops: string;

  readonly filesHeading: string;
  readonly noFiles: string;
  /** `{name} ({size}, {rows})`. */
  readonly fileWhat: string;
  readonly fileAttached: string;
  /** `{what}: not attached, {reason}.` */
  readonly fileNotAttached: string;
  /** `{size}`: SMTP_MAX_ATTACHMENT_MB formatted. */
  readonly tooLarge: string;
  readonly noLink: string;
  /** The text part's link line: `{url}`. */
  readonly downloadLine: string;
  /** The HTML's link text. */
  readonly download: string;
  /** `{path}` on the export's server. */
  readonly onServer: string;
  /** `{id}`: the export id. */
  readonly footer: string;
  readonly sizeUnits: { readonly bytes: string; readonly kilobytes: string; readonly megabytes: string };
  readonly skipReasons: SkipReasonTexts;
}
