// The small typed readers the groups of settings declare their variables with: bounded integers,
// true/false flags, service URLs without credentials, header-safe words, comma-separated lists.
// Each carries the error text an operator sees after the variable's name, so a shape refused in
// one group is refused in the same words in every other.

import { z } from 'zod';

export const int = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .transform((v) => v === 'true' || v === '1' || v === 'yes')
    .default(fallback);
/** `scheme://user[:password]@…`, even when the rest would not parse as a URL. */
export const hasUserinfo = (text: string): boolean => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(text);
/**
 * The base URL of a service. Credentials and queries are refused at start: they would be sent with
 * every request, logged with every URL and end up in the manifest's `source.base_url`, which
 * refuses them only after the whole export ran. The WFM token goes in WFM_TOKEN, S3 credentials
 * come from the AWS chain.
 */
export const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must start with http:// or https://')
  .refine((u) => !hasUserinfo(u), 'must not contain credentials (user:password@)')
  .refine((u) => !/[?#]/.test(u), 'must not have a query (?…) or a fragment (#…)')
  .transform((u) => u.replace(/\/+$/, ''));
/**
 * What a bearer token, a host name, a region or a key id can hold: printable ASCII, no space. A CR
 * or LF in a token would otherwise fail every request as a (retryable) network error.
 */
export const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
export const visibleAscii = (what: string) =>
  z.string().regex(VISIBLE_ASCII, `must be printable ASCII without spaces or line breaks (${what})`);
/** A comma-separated list, trimmed, without empty entries. */
export const listOf = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
