// The delivery e-mail's catalog of each report language. A Record over ReportLanguage: a language
// added to REPORT_LANGUAGES without a mail catalog fails `tsc` here.

import type { ReportLanguage } from '../report-language.js';
import { de } from './de.js';
import { en } from './en.js';
import type { MailMessages } from './mail-messages.js';
import { ptBR } from './pt-br.js';
import { ru } from './ru.js';

export const MAIL_CATALOGS: Readonly<Record<ReportLanguage, MailMessages>> = { en, ru, de, 'pt-BR': ptBR };

export function mailMessages(language: ReportLanguage): MailMessages {
  return MAIL_CATALOGS[language];
}
