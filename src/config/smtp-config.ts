// The SMTP group of settings: the server that sends the e-mail of export definitions with
// `deliver.email` (SMTP_URL, its password from SMTP_PASSWORD_FILE), the sender (SMTP_FROM) and the
// largest file attached rather than linked (SMTP_MAX_ATTACHMENT_MB). The password never leaves this
// object: `shown` is what logs, errors and `status` may say of the server.

import { z } from 'zod';
import { isPlainAddress } from '../domain/mail-address.js';
import { ConfigError } from '../errors.js';
import { hasControlCharacters } from '../one-line.js';
import { envVar, type Loaded } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';
import { readFileNamedBy } from './read-file-named-by.js';
import { int } from './variable-schemas.js';

/** Ports of the two schemes when SMTP_URL names none: submission with STARTTLS, and implicit TLS. */
export const SMTP_DEFAULT_PORTS = { 'smtp:': 587, 'smtps:': 465 } as const;

/** The SMTP server as nodemailer is given it. */
export interface SmtpServer {
  readonly host: string;
  readonly port: number;
  /** smtps://: TLS from the first byte. smtp:// upgrades with STARTTLS when the server offers it. */
  readonly secure: boolean;
  readonly user: string | undefined;
  readonly password: string | undefined;
  /** What may be shown of the server: `smtp://host:port`, never a user or password. */
  readonly shown: string;
}

function parseSmtpUrl(text: string | undefined): Omit<SmtpServer, 'password'> & { urlPassword?: string } {
  if (text === undefined) throw new Error('unreachable: parsed only when set');
  if (hasControlCharacters(text) || /\s/.test(text))
    throw new ConfigError('SMTP_URL is invalid: it has a space or control character', {
      variable: 'SMTP_URL',
    });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError('SMTP_URL is invalid: not a URL (expected smtp://host:port or smtps://host:port)', {
      variable: 'SMTP_URL',
    });
  }
  const protocol = url.protocol;
  if (protocol !== 'smtp:' && protocol !== 'smtps:')
    throw new ConfigError(`SMTP_URL is invalid: it must start with smtp:// or smtps:// (not ${protocol}//)`, {
      variable: 'SMTP_URL',
    });
  if (url.hostname === '')
    throw new ConfigError('SMTP_URL is invalid: it names no host', { variable: 'SMTP_URL' });
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '')
    throw new ConfigError('SMTP_URL is invalid: it must not have a path, query or fragment', {
      variable: 'SMTP_URL',
    });
  const port = url.port === '' ? SMTP_DEFAULT_PORTS[protocol] : Number(url.port);
  let user: string | undefined;
  let password: string | undefined;
  try {
    user = url.username === '' ? undefined : decodeURIComponent(url.username);
    password = url.password === '' ? undefined : decodeURIComponent(url.password);
  } catch {
    throw new ConfigError('SMTP_URL is invalid: its user or password is not percent-encoded correctly', {
      variable: 'SMTP_URL',
    });
  }
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    secure: protocol === 'smtps:',
    user,
    ...(password === undefined ? {} : { urlPassword: password }),
    shown: `${protocol}//${url.host.includes(':') ? url.host : `${url.host}:${port}`}`,
  };
}

/** SMTP_FROM: an address, or `Display Name <address>`, on one line. */
function parseFrom(text: string): string {
  const match = /^(?:([^<>"]*?)\s*<([^<>\s]+)>|([^<>\s]+))$/.exec(text);
  const address = match?.[2] ?? match?.[3];
  if (hasControlCharacters(text) || address === undefined || !isPlainAddress(address)) {
    throw new ConfigError(
      'SMTP_FROM is invalid: expected an e-mail address such as reports@example.com, or Reports <reports@example.com>',
      { variable: 'SMTP_FROM' },
    );
  }
  return text.trim();
}

export const smtpVariables = {
  url: envVar(
    'SMTP_URL',
    z.string().optional(),
    'SMTP server of the e-mail deliveries (`deliver.email` in EXPORTS_FILE): smtp://host:port (STARTTLS when offered; default port 587) or smtps://host:port (TLS; default 465), with user[:password]@ when the server wants a login (percent-encoded). Credentials are never logged or shown. Unset: no e-mail is sent; a definition with deliver.email needs it.',
  ),
  passwordFile: envVar(
    'SMTP_PASSWORD_FILE',
    z.string().optional(),
    "File holding the SMTP password of SMTP_URL's user (instead of a password in the URL); surrounding whitespace is ignored. Never logged.",
  ),
  from: envVar(
    'SMTP_FROM',
    z.string().optional(),
    'Sender of the e-mail deliveries: an address, or `Name <address>`. Required with SMTP_URL.',
  ),
  maxAttachmentBytes: envVar(
    'SMTP_MAX_ATTACHMENT_MB',
    int(1, 1024, 10).transform((mb) => mb * 1024 * 1024),
    'Largest file attached to a delivery e-mail (MiB); a larger one is sent as a presigned link (S3) or named by its path (a local folder), with the reason.',
  ),
};

export interface SmtpConfig {
  /** Undefined when SMTP_URL is unset: e-mail delivery is off. */
  readonly server: SmtpServer | undefined;
  /** SMTP_FROM as given; set whenever `server` is. */
  readonly from: string | undefined;
  readonly maxAttachmentBytes: number;
}

export type SmtpVariables = Loaded<typeof smtpVariables>;

export function loadSmtpConfig(env: Env): SmtpConfig {
  const raw = loadDeclared(env, smtpVariables);
  if (raw.url === undefined) {
    if (raw.passwordFile !== undefined)
      throw new ConfigError('SMTP_PASSWORD_FILE is set without SMTP_URL: the password is for its user', {
        variable: 'SMTP_PASSWORD_FILE',
      });
    const from = raw.from === undefined ? undefined : parseFrom(raw.from);
    return Object.freeze({ server: undefined, from, maxAttachmentBytes: raw.maxAttachmentBytes });
  }
  const { urlPassword, ...parsed } = parseSmtpUrl(raw.url);
  let password = urlPassword;
  if (raw.passwordFile !== undefined) {
    if (urlPassword !== undefined)
      throw new ConfigError(
        'SMTP_PASSWORD_FILE is set while SMTP_URL holds a password: give the password in one place',
        { variable: 'SMTP_PASSWORD_FILE' },
      );
    if (parsed.user === undefined)
      throw new ConfigError('SMTP_PASSWORD_FILE is set but SMTP_URL names no user (smtp://user@host)', {
        variable: 'SMTP_PASSWORD_FILE',
      });
    password = readFileNamedBy('SMTP_PASSWORD_FILE', raw.passwordFile, 'the SMTP password');
    if (/[\r\n]/.test(password))
      throw new ConfigError('SMTP_PASSWORD_FILE holds a line break inside the password', {
        variable: 'SMTP_PASSWORD_FILE',
      });
  }
  if (raw.from === undefined)
    throw new ConfigError('SMTP_FROM is required with SMTP_URL (the sender of the deliveries)', {
      variable: 'SMTP_FROM',
    });
  return Object.freeze({
    server: Object.freeze({ ...parsed, password }),
    from: parseFrom(raw.from),
    maxAttachmentBytes: raw.maxAttachmentBytes,
  });
}
