// The notifications group of settings: the webhook URLs that hear of published and failed exports
// and finished backfills, the key that signs each body, and a delivery's timeout, attempts, backoff
// and the lifetime of the S3 file links it carries.

import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { hasControlCharacters } from '../one-line.js';
import { envVar, type Loaded } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';
import { int, listOf, visibleAscii } from './variable-schemas.js';

/**
 * A webhook URL as an error may show it: scheme, host and port, credentials as `***` and the path
 * elided, because chat webhooks (Slack, Teams) carry their secret in the path.
 */
function shownWebhookUrl(url: URL): string {
  const userinfo = url.username !== '' || url.password !== '' ? '***@' : '';
  return `${url.protocol}//${userinfo}${url.host}/…`;
}

/** NOTIFY_WEBHOOK_URL: each entry an absolute http(s) URL; a bad one named by its place and origin. */
function parseWebhookUrls(text: string | undefined): readonly string[] {
  const entries = listOf(text);
  entries.forEach((entry, i) => {
    const which = entries.length === 1 ? 'its URL' : `entry ${i + 1}`;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(
        `NOTIFY_WEBHOOK_URL is invalid: ${which} is not a URL (expected https://host/path, comma-separated)`,
        { variable: 'NOTIFY_WEBHOOK_URL' },
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ConfigError(
        `NOTIFY_WEBHOOK_URL is invalid: ${which} (${shownWebhookUrl(url)}) must start with http:// or https://`,
        { variable: 'NOTIFY_WEBHOOK_URL' },
      );
    }
    if (hasControlCharacters(entry) || /\s/.test(entry)) {
      throw new ConfigError(
        `NOTIFY_WEBHOOK_URL is invalid: ${which} (${shownWebhookUrl(url)}) has a space or control character`,
        { variable: 'NOTIFY_WEBHOOK_URL' },
      );
    }
  });
  return Object.freeze(entries);
}

export const notifyVariables = {
  webhookUrls: envVar(
    'NOTIFY_WEBHOOK_URL',
    z.string().optional().transform(parseWebhookUrls),
    'Comma-separated webhook URLs that get a JSON POST on export.published, export.failed and backfill.completed (Slack and Teams incoming webhooks show its text field). Unset: no notifications. Never logged beyond scheme and host.',
  ),
  secret: envVar(
    'NOTIFY_WEBHOOK_SECRET',
    visibleAscii('a line break or space is a paste error, not part of a key')
      .min(16, 'must be at least 16 characters')
      .optional(),
    'Key of the HMAC-SHA256 of each raw body, sent as X-Shift-Export-Signature: sha256=<hex>: at least 16 printable ASCII characters. Unset: notifications are not signed.',
  ),
  timeoutMs: envVar(
    'NOTIFY_TIMEOUT_MS',
    int(100, 600_000, 10_000),
    'Longest time one webhook POST may take (connect, headers and body).',
  ),
  attempts: envVar(
    'NOTIFY_ATTEMPTS',
    int(1, 100, 8),
    'Attempts of a notification by the worker (a job of its own per event and URL) on network errors, timeouts, 408, 429 and 5xx; `run` makes at most 3 within 15 s.',
  ),
  backoffMs: envVar(
    'NOTIFY_BACKOFF_MS',
    int(0, 86_400_000, 5_000),
    'First retry delay of a notification by the worker; doubles each attempt, half fixed and half random, at most 1 h.',
  ),
  linkExpiresSeconds: envVar(
    'NOTIFY_LINK_EXPIRES_SECONDS',
    int(1, 7 * 24 * 3600, 24 * 3600),
    'Lifetime of the presigned S3 file links in a notification (at most 7 days; temporary credentials may end them sooner).',
  ),
};

export type NotifyConfig = Loaded<typeof notifyVariables>;

export function loadNotifyConfig(env: Env): NotifyConfig {
  return loadDeclared(env, notifyVariables);
}
