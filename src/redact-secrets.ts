// Owns the rule for keeping credentials out of text we show: configuration errors, and the one
// line the CLI prints for any failure. An error may echo a value to help an operator find a typo,
// but a malformed REDIS_URL still holds its password, a token pasted into the wrong variable is
// still a token, and zod may quote the input it refused: so such text goes through here.

/** Names of variables whose whole value is a secret (or may be one: a token pasted in by mistake). */
const SECRET_NAME = /TOKEN|PASSWORD|PASSWD|SECRET|KEY|CREDENTIAL/i;

export const REDACTED = '***';

/** Secret values shorter than this are not searched for: replacing every "1" hides nothing. */
const MIN_KNOWN_SECRET_LENGTH = 4;

/**
 * URL userinfo: from `scheme://` to the last `@` before a quote, `<`, `>` or the end of the line.
 * Spaces are crossed on purpose: the malformed URLs we refuse are the ones with a space in the
 * password. Overreaching into later text hides a little too much, never too little.
 */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^"'<>\r\n]*@/gi;

/** `password=…`, `api_key=…`, `access_token=…` in a query or a key=value list. */
const SECRET_PARAMETER =
  /\b([\w.-]*(?:password|passwd|pwd|token|secret|key|credential|signature)s?[\w.-]*)=("[^"]*"|'[^']*'|[^\s&;,"'<>)]*)/gi;

/** The credential of an Authorization header value (capitalised: "a bearer token" is prose). */
const AUTHORIZATION = /\b(Bearer|Basic) +[^\s"',;<>]+/g;

/** Whether the variable `name` holds a secret by its name: its value is never shown. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * `text` without URL userinfo, secret-named parameters, Authorization credentials and any of
 * `knownSecrets` (values of secret-named variables, which have no shape to recognise them by).
 */
export function redactSecrets(text: string, knownSecrets: Iterable<string> = []): string {
  let out = text;
  // Longest first, so that a secret containing another is not left half-replaced.
  const secrets = [...knownSecrets]
    .filter((s) => s.length >= MIN_KNOWN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  return out
    .replace(USERINFO, `$1${REDACTED}@`)
    .replace(SECRET_PARAMETER, `$1=${REDACTED}`)
    .replace(AUTHORIZATION, `$1 ${REDACTED}`);
}

/**
 * A variable's value as an error message may quote it: `***` for a secret-named variable, else the
 * value with its secrets redacted (a URL also loses its query and fragment), as a JSON string
 * (control characters escaped, one line).
 */
export function shownValue(name: string, value: string, knownSecrets: Iterable<string> = []): string {
  if (isSecretName(name)) return REDACTED;
  let shown = value;
  const scheme = value.indexOf('://');
  if (scheme >= 0) {
    // A malformed URL may hide its password behind a quote or a line break, which the text rule
    // stops at: in one value, everything from `://` to the last `@` is taken as userinfo.
    const at = value.lastIndexOf('@');
    if (at > scheme) shown = `${value.slice(0, scheme + 3)}${REDACTED}${value.slice(at)}`;
    // A query or fragment may carry a secret of any shape (a signature, an access token).
    shown = shown.replace(/([?#])[\s\S]*$/, `$1${REDACTED}`);
  }
  return JSON.stringify(redactSecrets(shown, knownSecrets));
}

/** The values of every secret-named variable in `env`, and of each comma-separated part of them. */
export function secretValuesOf(env: Readonly<Record<string, string | undefined>>): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '' || !isSecretName(name)) continue;
    values.push(value, value.trim());
    for (const part of value.split(',')) values.push(part.trim());
  }
  return values;
}
