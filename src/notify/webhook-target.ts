// One webhook receiver as the notifier holds it. Its URL may carry a secret (credentials, or the
// path of a Slack or Teams incoming webhook), so the URL is never logged, stored in a job or put
// into an error: logs and errors show `shown` (scheme and host), and a queued delivery names its
// target by `key`, a hash of the URL, looked up again in NOTIFY_WEBHOOK_URL when it is sent.

import { createHash } from 'node:crypto';

export interface WebhookTarget {
  /** The URL to POST to, without credentials. */
  readonly url: string;
  /** `Basic …` from the URL's credentials, if it had any. */
  readonly authorization: string | undefined;
  /** What logs and errors show: scheme, host and port. */
  readonly shown: string;
  /** A stable name for the URL that reveals nothing of it: 12 hex digits of its SHA-256. */
  readonly key: string;
}

export function webhookTarget(text: string): WebhookTarget {
  const url = new URL(text);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const authorization =
    user === '' && password === ''
      ? undefined
      : `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
  url.username = '';
  url.password = '';
  return {
    url: url.toString(),
    authorization,
    shown: `${url.protocol}//${url.host}`,
    key: createHash('sha256').update(text).digest('hex').slice(0, 12),
  };
}

export function webhookTargets(urls: readonly string[]): readonly WebhookTarget[] {
  return urls.map(webhookTarget);
}
