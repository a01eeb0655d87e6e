// Owns which languages a division's workbook is written in, when its definition mails it to the
// division's managers: the export's own language (shifts.xlsx, also read by every manager whose
// language has no catalog), and each further language a manager who gets the mail reads
// (shifts.<lang>.xlsx), chosen as the mail chooses it (chooseLanguage, managerMailProblem). So a
// division whose two managers read Russian and German gets both, each mailed to its reader, and
// the rows are read once and rendered into each.

import type { Division } from 'wfm-contract/division';
import { managerMailProblem } from '../domain/manager-mail.js';
import { chooseLanguage, REPORT_LANGUAGES, type ReportLanguage } from '../i18n/report-language.js';

/** For each division: the languages its workbook is written in beside `primary`, in REPORT_LANGUAGES' order. */
export function divisionLanguages(
  divisions: readonly Pick<Division, 'id' | 'dirs'>[],
  primary: ReportLanguage,
): ReadonlyMap<number, readonly ReportLanguage[]> {
  const byDivision = new Map<number, readonly ReportLanguage[]>();
  for (const division of divisions) {
    const read = new Set<ReportLanguage>();
    for (const manager of division.dirs ?? [])
      if (managerMailProblem(manager) === undefined) read.add(chooseLanguage(manager.lang, primary).language);
    const more = REPORT_LANGUAGES.filter((l) => l !== primary && read.has(l));
    if (more.length > 0) byDivision.set(division.id, more);
  }
  return byDivision;
}
