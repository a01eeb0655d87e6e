// Bearer tokens and roles of the sandbox. The spec names one role (ROLE_SURVEY_ADMIN, for category
// writes) and leaves the others open; the sandbox decides: division writes need
// ROLE_ORGSTRUCT_ADMIN, the report needs ROLE_WFM_REPORTS, other reads need any valid token.

export const ROLE_SURVEY_ADMIN = 'ROLE_SURVEY_ADMIN';
export const ROLE_ORGSTRUCT_ADMIN = 'ROLE_ORGSTRUCT_ADMIN';
export const ROLE_WFM_REPORTS = 'ROLE_WFM_REPORTS';

/** Token → roles. */
export type SandboxTokens = Readonly<Record<string, readonly string[]>>;

/** Every role the sandbox checks. */
export const SANDBOX_ROLES: readonly string[] = Object.freeze([
  ROLE_SURVEY_ADMIN,
  ROLE_ORGSTRUCT_ADMIN,
  ROLE_WFM_REPORTS,
]);

/** The default tokens: every role, the report only, no role. */
export const SANDBOX_ADMIN_TOKEN = 'sandbox-admin';
export const SANDBOX_READER_TOKEN = 'sandbox-reader';
export const SANDBOX_NOROLE_TOKEN = 'sandbox-norole';

export const DEFAULT_SANDBOX_TOKENS: SandboxTokens = Object.freeze({
  [SANDBOX_ADMIN_TOKEN]: SANDBOX_ROLES,
  [SANDBOX_READER_TOKEN]: Object.freeze([ROLE_WFM_REPORTS]),
  [SANDBOX_NOROLE_TOKEN]: Object.freeze([]),
});

/** The first token holding every role: the one to tell a user who wants to try every endpoint. */
export function adminTokenOf(tokens: SandboxTokens): string | undefined {
  return Object.keys(tokens).find((token) => SANDBOX_ROLES.every((role) => tokens[token]?.includes(role)));
}

export interface AuthFailure {
  readonly status: 401 | 403;
  readonly message: string;
}

/** Undefined when the Authorization header carries a known token holding `role` (if any). */
export function checkAuthorization(
  tokens: SandboxTokens,
  header: string | undefined,
  role: string | undefined,
): AuthFailure | undefined {
  const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (m === null)
    return { status: 401, message: 'missing or malformed Authorization header: expected "Bearer <token>"' };
  const roles = Object.hasOwn(tokens, m[1] ?? '') ? tokens[m[1] ?? ''] : undefined;
  if (roles === undefined) return { status: 401, message: 'invalid or expired access token' };
  if (role !== undefined && !roles.includes(role))
    return { status: 403, message: `access denied: ${role} required` };
  return undefined;
}
