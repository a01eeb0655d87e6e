// Owns the start-up rule between export definitions and SMTP: a worker (or `run --export`) whose
// definitions ask for e-mail must have an SMTP server, or their mail would silently never go.
// Called with the names of the definitions that have `deliver.email`.

import type { SmtpConfig } from '../config/smtp-config.js';
import { ConfigError } from '../errors.js';

export function assertSmtpForEmail(definitionsWithEmail: readonly string[], smtp: SmtpConfig): void {
  if (definitionsWithEmail.length === 0 || smtp.server !== undefined) return;
  const names = definitionsWithEmail.slice(0, 5).join(', ');
  const more = definitionsWithEmail.length > 5 ? ` and ${definitionsWithEmail.length - 5} more` : '';
  throw new ConfigError(
    `SMTP_URL is not set, but the export definitions ${names}${more} deliver e-mail (deliver.email): set SMTP_URL and SMTP_FROM`,
    { variable: 'SMTP_URL' },
  );
}
