// Bearer-token auth of the control API (API_TOKENS: several tokens, so one can be rotated at a
// time). Every token is compared, in constant time, as SHA-256 digests of equal length: neither
// the position of the first wrong byte nor the length of a token, nor which token matched, shows
// in the timing. The dashboard also takes the token as the password of HTTP Basic auth, because a
// browser cannot send a bearer header but prompts for Basic by itself.

import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export interface TokenChecker {
  /** True when `candidate` is one of the tokens. */
  matches(candidate: string): boolean;
}

export function tokenChecker(tokens: readonly string[]): TokenChecker {
  const digests = tokens.map(digest);
  return {
    matches(candidate) {
      const given = digest(candidate);
      let ok = false;
      for (const d of digests) ok = timingSafeEqual(d, given) || ok;
      return ok && digests.length > 0;
    },
  };
}

/** The token of an Authorization header: `Bearer <token>`, or with `allowBasic` the Basic password. */
export function credentialOf(header: string | undefined, allowBasic: boolean): string | undefined {
  if (header === undefined) return undefined;
  const match = /^(\w+) +(\S+) *$/.exec(header);
  if (match === null) return undefined;
  const scheme = (match[1] ?? '').toLowerCase();
  const value = match[2] ?? '';
  if (scheme === 'bearer') return value;
  if (scheme === 'basic' && allowBasic) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon === -1 ? undefined : decoded.slice(colon + 1);
  }
  return undefined;
}
