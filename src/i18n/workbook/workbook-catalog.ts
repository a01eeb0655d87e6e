// Owns which catalog a workbook in a given language reads: one complete WorkbookMessages per
// report language (a Record over ReportLanguage, so a language without a catalog fails the build).

import type { ReportLanguage } from '../report-language.js';
import { de } from './de.js';
import { en } from './en.js';
import { ptBR } from './pt-br.js';
import { ru } from './ru.js';
import type { WorkbookMessages } from './workbook-messages.js';

export const WORKBOOK_CATALOGS: Readonly<Record<ReportLanguage, WorkbookMessages>> = {
  en,
  ru,
  de,
  'pt-BR': ptBR,
};

export function workbookMessages(language: ReportLanguage): WorkbookMessages {
  return WORKBOOK_CATALOGS[language];
}
