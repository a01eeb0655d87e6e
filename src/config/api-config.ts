// The control API and dashboard group of settings: where the API listens, its bearer tokens (from
// API_TOKENS or API_TOKENS_FILE; without one the API does not start), the largest request body, and
// whether the dashboard may change the queue.

import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { envVar, type Loaded } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';
import { readFileNamedBy } from './read-file-named-by.js';
import { flag, int, listOf, VISIBLE_ASCII, visibleAscii } from './variable-schemas.js';

/**
 * The API's bearer tokens from API_TOKENS, else API_TOKENS_FILE (comma- or line-separated); without
 * one the API would be open, so it does not start.
 */
function resolveApiTokens(text: string | undefined, file: string | undefined): readonly string[] {
  const variable = text === undefined && file !== undefined ? 'API_TOKENS_FILE' : 'API_TOKENS';
  const tokens =
    variable === 'API_TOKENS_FILE' && file !== undefined
      ? listOf(readFileNamedBy(variable, file).replace(/\r?\n/g, ','))
      : listOf(text);
  if (tokens.length === 0) {
    throw new ConfigError(
      'API_TOKENS is not set (nor API_TOKENS_FILE): give the control API at least one bearer token',
      { variable },
    );
  }
  if (!tokens.every((t) => VISIBLE_ASCII.test(t))) {
    // A client could never send such a token in its Authorization header.
    throw new ConfigError(
      `${variable} has a token with a space, line break or other character an HTTP header cannot carry`,
      { variable },
    );
  }
  if (tokens.some((t) => t.length < MIN_API_TOKEN_LENGTH)) {
    // A short token can be guessed; the message names the variable, never the token.
    throw new ConfigError(
      `${variable} has a token shorter than ${MIN_API_TOKEN_LENGTH} characters: use long random tokens (e.g. openssl rand -hex 24)`,
      { variable },
    );
  }
  return Object.freeze(tokens);
}

/** The shortest bearer token the API accepts. */
export const MIN_API_TOKEN_LENGTH = 16;

export const apiVariables = {
  host: envVar(
    'API_HOST',
    visibleAscii('a host name or address').default('0.0.0.0'),
    'Address the control API listens on.',
  ),
  port: envVar('API_PORT', int(0, 65_535, 3000), 'Port of the control API.'),
  /** Resolved with tokensFile by loadApiConfig. */
  tokens: envVar(
    'API_TOKENS',
    z.string().optional(),
    'Comma-separated bearer tokens accepted by the control API and dashboard, each at least 16 characters.',
    { docDefault: '(none: the API refuses to start)' },
  ),
  tokensFile: envVar(
    'API_TOKENS_FILE',
    z.string().optional(),
    'File holding the API tokens, comma- or line-separated (used when API_TOKENS is unset).',
  ),
  bodyLimitBytes: envVar(
    'API_BODY_LIMIT_BYTES',
    int(64, 1024 * 1024, 16_384),
    'Largest request body the control API accepts.',
  ),
  dashboardReadOnly: envVar(
    'DASHBOARD_READ_ONLY',
    flag(true),
    'Bull Board at /admin/queues only shows the queue; false enables its write actions (add, retry, clean, remove, update data, pause, empty, obliterate).',
  ),
};

export type ApiConfig = Omit<Loaded<typeof apiVariables>, 'tokens' | 'tokensFile'> & {
  readonly tokens: readonly string[];
};

export function loadApiConfig(env: Env): ApiConfig {
  const { tokens, tokensFile, ...config } = loadDeclared(env, apiVariables);
  return Object.freeze({ ...config, tokens: resolveApiTokens(tokens, tokensFile) });
}
