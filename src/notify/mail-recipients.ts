// Who gets which mail of an export definition's `deliver.email`: the messages to write (one per
// division with `to: division-managers`, one for the whole export with a list of addresses) and the
// people left out, each with the reason. Pure: the divisions and their managers are read from the
// upstream by the caller, at send time, so a manager who left since the export ran gets nothing.
// A manager gets mail when `active` and `inviteAccepted` are both true and `login` is a plain
// address (src/domain/mail-address.ts); everything of the upstream's that reaches a header is an
// address that passed that rule, or a display name with every control character taken out.
// Each message is in one language: a division's managers read their own `lang` when it has a
// catalog (chooseLanguage), the definition's otherwise, and a division whose managers read two
// languages gets one message per language, each to its readers. A fixed list (`to`, `cc`) reads
// the definition's language. The upstream's `lang` only ever selects a catalog: it never reaches
// a header or a text itself.

import type { DivisionManager } from 'wfm-contract/division';
import type { ExportFormat } from '../domain/export-format.js';
import { isPlainAddress } from '../domain/mail-address.js';
import { managerMailProblem } from '../domain/manager-mail.js';
import { mailMessages } from '../i18n/mail/mail-catalog.js';
import { chooseLanguage, type ReportLanguage } from '../i18n/report-language.js';

/** `to:` meaning each division's managers (the definitions' DIVISION_MANAGERS). */
export const DIVISION_MANAGERS_TO = 'division-managers';

/** An export definition's `deliver.email`, as the definitions loader returns it. */
export interface MailSettings {
  readonly to: readonly string[] | typeof DIVISION_MANAGERS_TO;
  readonly cc: readonly string[];
  readonly attach: readonly ExportFormat[];
  readonly when: 'always' | 'changed';
  /**
   * The definition's language: a list of addresses reads it, and so does a division manager whose
   * upstream `lang` has no catalog or is not a language tag (chooseLanguage's fallback).
   */
  readonly lang: ReportLanguage;
}

/** A division as the upstream lists it (GET /v1/orgstruct/divisions, fields=dirs). */
export interface MailDivision {
  readonly id: number;
  readonly name: string;
  readonly dirs?:
    | readonly (Pick<
        DivisionManager,
        'id' | 'active' | 'inviteAccepted' | 'login' | 'firstName' | 'lastName'
      > &
        // Optional here: a manager the upstream sends without one reads the definition's language.
        Partial<Pick<DivisionManager, 'lang'>>)[]
    | undefined;
}

export interface MailRecipient {
  readonly address: string;
  /** A display name without control characters; undefined when there is none. */
  readonly name: string | undefined;
}

/** One message to write: a division's (division_id set) or the whole export's (null), in one language. */
export interface MailGroup {
  readonly division_id: number | null;
  readonly lang: ReportLanguage;
  readonly to: readonly MailRecipient[];
  readonly cc: readonly MailRecipient[];
}

/** A manager who reads the definition's language because their own could not be served. */
export interface LanguageFallback {
  readonly division_id: number;
  readonly manager_id: number;
  /** `no_catalog`: a well-formed tag without a catalog (`kk-KZ`); `unknown`: none, or not a tag. */
  readonly reason: 'no_catalog' | 'unknown';
  /** The tag asked for, canonical BCP 47 (letters, digits and `-` only); absent when unknown. */
  readonly asked?: string;
}

export const SKIP_REASONS = [
  'inactive',
  'invite_not_accepted',
  'login_not_an_address',
  'not_an_address',
  'division_not_found',
  'no_recipient',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** The job's result and the log are the operator's, in English; the catalog has every language's. */
const SKIP_TEXT: Readonly<Record<SkipReason, string>> = mailMessages('en').skipReasons;

/** Someone (or a division) that gets no mail, and why: in the job's result and the log. */
export interface SkippedRecipient {
  readonly division_id: number | null;
  /** The upstream's manager id; null for an address of the definition or a whole division. */
  readonly manager_id: number | null;
  /** The login or address as text that is safe to print: control characters escaped. */
  readonly login: string | null;
  readonly reason: SkipReason;
  readonly message: string;
}

export interface MailRecipients {
  readonly groups: readonly MailGroup[];
  readonly skipped: readonly SkippedRecipient[];
  readonly fallbacks: readonly LanguageFallback[];
}

/** Longest display name put in a header (the upstream's names have no limit). */
export const MAX_DISPLAY_NAME = 100;

/**
 * A name as a header may carry it: every control character (CR and LF above all), line or
 * paragraph separator and bidi control becomes a space, spaces collapse, at most MAX_DISPLAY_NAME
 * characters. nodemailer quotes and encodes what remains (non-Latin letters included).
 */
export function displayName(text: string): string | undefined {
  const cleaned = text
    // eslint-disable-next-line no-control-regex -- taking control characters out is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (cleaned === '') return undefined;
  return [...cleaned].slice(0, MAX_DISPLAY_NAME).join('').trim();
}

/** A login or address as a log line and a job result may show it: control characters escaped. */
export function shownLogin(text: string): string {
  const escaped = JSON.stringify(text).slice(1, -1);
  return escaped.length > 200 ? `${escaped.slice(0, 199)}…` : escaped;
}

function skipped(
  division: number | null,
  manager: number | null,
  login: string | null,
  reason: SkipReason,
): SkippedRecipient {
  return {
    division_id: division,
    manager_id: manager,
    login: login === null ? null : shownLogin(login),
    reason,
    message: SKIP_TEXT[reason],
  };
}

/** The addresses of a list, de-duplicated without regard to case; the others skipped. */
function addressList(
  list: readonly string[],
  division: number | null,
  out: SkippedRecipient[],
): MailRecipient[] {
  const seen = new Set<string>();
  const recipients: MailRecipient[] = [];
  for (const address of list) {
    if (!isPlainAddress(address)) {
      out.push(skipped(division, null, address, 'not_an_address'));
      continue;
    }
    if (seen.has(address.toLowerCase())) continue;
    seen.add(address.toLowerCase());
    recipients.push({ address, name: undefined });
  }
  return recipients;
}

/** Why a manager gets no mail; undefined when they get it (domain/manager-mail.ts). */
export function managerProblem(manager: NonNullable<MailDivision['dirs']>[number]): SkipReason | undefined {
  return managerMailProblem(manager);
}

/**
 * The messages of one delivery. With a list of addresses: one message for the export, in the
 * definition's language. With division-managers: for each division of `divisionIds` (those the
 * export wrote files for) that has a manager who can get mail, in the order given, one message per
 * language its managers read, the languages in the order of their first reader. cc, a fixed list,
 * reads the definition's language: it goes on the division's message in that language, or, when
 * no manager reads it, on the division's first message, so cc still sees every division once.
 */
export function mailRecipients(
  settings: Pick<MailSettings, 'to' | 'cc' | 'lang'>,
  divisionIds: readonly number[],
  divisions: readonly MailDivision[],
): MailRecipients {
  const out: SkippedRecipient[] = [];
  const fallbacks: LanguageFallback[] = [];
  if (settings.to !== DIVISION_MANAGERS_TO) {
    const to = addressList(settings.to, null, out);
    const cc = addressList(settings.cc, null, out).filter(
      (c) => !to.some((t) => t.address.toLowerCase() === c.address.toLowerCase()),
    );
    return {
      groups: to.length === 0 ? [] : [{ division_id: null, lang: settings.lang, to, cc }],
      skipped: out,
      fallbacks,
    };
  }
  const byId = new Map(divisions.map((d) => [d.id, d]));
  const groups: MailGroup[] = [];
  const ccOnce = addressList(settings.cc, null, out);
  for (const id of divisionIds) {
    const division = byId.get(id);
    if (division?.dirs === undefined) {
      out.push(skipped(id, null, null, 'division_not_found'));
      continue;
    }
    const seen = new Set<string>();
    const byLanguage = new Map<ReportLanguage, MailRecipient[]>();
    for (const manager of division.dirs) {
      const problem = managerProblem(manager);
      if (problem !== undefined) {
        out.push(skipped(id, manager.id, manager.login, problem));
        continue;
      }
      if (seen.has(manager.login.toLowerCase())) continue;
      seen.add(manager.login.toLowerCase());
      const choice = chooseLanguage(manager.lang, settings.lang);
      if (choice.via === 'fallback')
        fallbacks.push({
          division_id: id,
          manager_id: manager.id,
          reason: choice.reason,
          ...(choice.reason === 'no_catalog' ? { asked: choice.asked } : {}),
        });
      const readers = byLanguage.get(choice.language) ?? [];
      readers.push({ address: manager.login, name: displayName(`${manager.firstName} ${manager.lastName}`) });
      byLanguage.set(choice.language, readers);
    }
    if (byLanguage.size === 0) {
      out.push(skipped(id, null, null, 'no_recipient'));
      continue;
    }
    const cc = ccOnce.filter((c) => !seen.has(c.address.toLowerCase()));
    const ccGoesTo = byLanguage.has(settings.lang) ? settings.lang : [...byLanguage.keys()][0];
    for (const [lang, to] of byLanguage)
      groups.push({ division_id: id, lang, to, cc: lang === ccGoesTo ? cc : [] });
  }
  return { groups, skipped: out, fallbacks };
}
