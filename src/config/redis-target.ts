// Owns which Redis the queue talks to: one of three shapes — a single primary (REDIS_URL), a Redis
// Cluster found from seed nodes (REDIS_CLUSTER_NODES), or the primary a group of Sentinels names
// (REDIS_SENTINELS + REDIS_SENTINEL_NAME) — each with an optional password (REDIS_PASSWORD_FILE)
// and TLS (rediss:// or REDIS_TLS, REDIS_TLS_CA_FILE). Resolved once from the declared variables
// (queue-config.ts) and checked as a whole: a bad combination stops the start with one line naming the
// variable. `where` describes the target for messages and never holds a credential.

import { ConfigError } from '../errors.js';
import { readFileNamedBy } from './read-file-named-by.js';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export interface RedisTls {
  /** PEM of the CA that signed the servers' certificates; undefined: Node's built-in CAs. */
  readonly ca: string | undefined;
}

interface TargetBase {
  /** The password from REDIS_PASSWORD_FILE (a password in REDIS_URL stays in the URL). */
  readonly password: string | undefined;
  /** TLS with server-name checks (never turned off); undefined: plain TCP. */
  readonly tls: RedisTls | undefined;
  /** What to call the target in a message, e.g. `Redis at redis://cache:6379`; no credentials. */
  readonly where: string;
  /** The variable an operator fixes when the target cannot be reached. */
  readonly variable: 'REDIS_URL' | 'REDIS_CLUSTER_NODES' | 'REDIS_SENTINELS';
}

export type RedisTarget =
  | (TargetBase & { readonly kind: 'single'; readonly url: string })
  | (TargetBase & { readonly kind: 'cluster'; readonly nodes: readonly HostPort[] })
  | (TargetBase & {
      readonly kind: 'sentinel';
      readonly sentinels: readonly HostPort[];
      readonly name: string;
      /** The Sentinels' own password (REDIS_SENTINEL_PASSWORD_FILE); undefined: they ask for none. */
      readonly sentinelPassword: string | undefined;
    });

/** The raw values of the Redis variables, as queue-config.ts declared and validated them one by one. */
export interface RedisVariables {
  readonly url: string;
  readonly passwordFile: string | undefined;
  readonly clusterNodes: string | undefined;
  readonly sentinels: string | undefined;
  readonly sentinelPasswordFile: string | undefined;
  readonly sentinelName: string | undefined;
  /** undefined: not set (then rediss:// decides for REDIS_URL). */
  readonly tls: boolean | undefined;
  readonly tlsCaFile: string | undefined;
  /** QUEUE_PREFIX: on a cluster it must be a {hash-tag}. */
  readonly prefix: string;
}

/** The URL for messages: `redis://host:port/db`, never a user or password. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'the configured REDIS_URL';
  }
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;
/** An entry we may echo in an error: nothing that could be a password (no @, no spaces). */
const SHOWABLE = /^[\w.:[\]-]{1,100}$/;

/** `host:port,host:port` into a list; `variable` names the list in errors. */
export function parseHostPorts(text: string, variable: string): readonly HostPort[] {
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) throw new ConfigError(`${variable} names no host:port`, { variable });
  return Object.freeze(
    entries.map((entry, i) => {
      const match = HOST_PORT.exec(entry);
      const port = Number(match?.[2]);
      if (match === null || port < 1 || port > 65_535) {
        const shown = SHOWABLE.test(entry) ? `"${entry}"` : `entry ${i + 1}`;
        throw new ConfigError(
          `${variable} is invalid: ${shown} is not host:port (e.g. 10.0.0.5:6379), comma-separated`,
          { variable },
        );
      }
      return Object.freeze({ host: match[1]!.replace(/^\[|\]$/g, ''), port });
    }),
  );
}

function listText(nodes: readonly HostPort[]): string {
  return nodes.map((n) => (n.host.includes(':') ? `[${n.host}]:${n.port}` : `${n.host}:${n.port}`)).join(',');
}

function readPassword(
  variable: 'REDIS_PASSWORD_FILE' | 'REDIS_SENTINEL_PASSWORD_FILE',
  path: string,
): string {
  const password = readFileNamedBy(variable, path, 'a password');
  if (/[\r\n]/.test(password))
    throw new ConfigError(`${variable} holds more than one line (only surrounding whitespace is ignored)`, {
      variable,
    });
  return password;
}

function readCa(path: string): string {
  const pem = readFileNamedBy('REDIS_TLS_CA_FILE', path, 'a PEM certificate');
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new ConfigError('REDIS_TLS_CA_FILE holds no PEM certificate (-----BEGIN CERTIFICATE-----)', {
      variable: 'REDIS_TLS_CA_FILE',
    });
  return pem;
}

function urlHasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '';
  } catch {
    return false;
  }
}

const isSet = (text: string | undefined): text is string => text !== undefined && text.trim() !== '';

/**
 * The one Redis target the variables describe. Cluster and Sentinels are exclusive; either one,
 * when set, replaces REDIS_URL (which may then point anywhere) — there is no fallback between
 * shapes, so a cluster that cannot be reached is an error, not a quiet switch to another Redis.
 */
export function resolveRedisTarget(vars: RedisVariables): RedisTarget {
  const cluster = isSet(vars.clusterNodes);
  const sentinel = isSet(vars.sentinels);
  if (cluster && sentinel)
    throw new ConfigError(
      'REDIS_CLUSTER_NODES and REDIS_SENTINELS are both set: a queue lives on a cluster or behind Sentinels, not both',
      { variable: 'REDIS_CLUSTER_NODES' },
    );
  if (sentinel && !isSet(vars.sentinelName))
    throw new ConfigError(
      'REDIS_SENTINELS is set but REDIS_SENTINEL_NAME is not: name the primary to ask for',
      {
        variable: 'REDIS_SENTINEL_NAME',
      },
    );
  if (!sentinel && isSet(vars.sentinelName))
    throw new ConfigError(
      'REDIS_SENTINEL_NAME is set but REDIS_SENTINELS is not: list the Sentinels (host:port,…)',
      {
        variable: 'REDIS_SENTINELS',
      },
    );
  if (!sentinel && isSet(vars.sentinelPasswordFile))
    throw new ConfigError(
      'REDIS_SENTINEL_PASSWORD_FILE is set but REDIS_SENTINELS is not: it is the password of the Sentinels',
      { variable: 'REDIS_SENTINEL_PASSWORD_FILE' },
    );
  if (cluster && !/^\{[^{}]+\}$/.test(vars.prefix))
    throw new ConfigError(
      'QUEUE_PREFIX must be a {hash-tag} on Redis Cluster, so that every key of the queue is in one slot',
      { variable: 'QUEUE_PREFIX' },
    );

  const single = !cluster && !sentinel;
  const tlsOn = vars.tls ?? (single && /^rediss:/i.test(vars.url));
  if (single && vars.tls === false && /^rediss:/i.test(vars.url))
    throw new ConfigError('REDIS_TLS is false but REDIS_URL is rediss:// (TLS): keep one', {
      variable: 'REDIS_TLS',
    });
  if (isSet(vars.tlsCaFile) && !tlsOn)
    throw new ConfigError(
      `REDIS_TLS_CA_FILE is set but TLS is off: set REDIS_TLS=true${single ? ' or use a rediss:// REDIS_URL' : ''}`,
      { variable: 'REDIS_TLS_CA_FILE' },
    );
  if (single && isSet(vars.passwordFile) && urlHasPassword(vars.url))
    throw new ConfigError('REDIS_PASSWORD_FILE is set and REDIS_URL has a password too: keep one', {
      variable: 'REDIS_PASSWORD_FILE',
    });

  const base = {
    password: isSet(vars.passwordFile) ? readPassword('REDIS_PASSWORD_FILE', vars.passwordFile) : undefined,
    tls: tlsOn
      ? Object.freeze({ ca: isSet(vars.tlsCaFile) ? readCa(vars.tlsCaFile) : undefined })
      : undefined,
  };
  if (cluster) {
    const nodes = parseHostPorts(vars.clusterNodes!, 'REDIS_CLUSTER_NODES');
    return Object.freeze({
      ...base,
      kind: 'cluster',
      nodes,
      where: `Redis Cluster at ${listText(nodes)}${tlsOn ? ' (TLS)' : ''}`,
      variable: 'REDIS_CLUSTER_NODES',
    });
  }
  if (sentinel) {
    const sentinels = parseHostPorts(vars.sentinels!, 'REDIS_SENTINELS');
    const name = vars.sentinelName!.trim();
    return Object.freeze({
      ...base,
      kind: 'sentinel',
      sentinels,
      name,
      sentinelPassword: isSet(vars.sentinelPasswordFile)
        ? readPassword('REDIS_SENTINEL_PASSWORD_FILE', vars.sentinelPasswordFile)
        : undefined,
      where: `Redis primary "${name}" via Sentinels ${listText(sentinels)}${tlsOn ? ' (TLS)' : ''}`,
      variable: 'REDIS_SENTINELS',
    });
  }
  return Object.freeze({
    ...base,
    kind: 'single',
    url: vars.url,
    where: `Redis at ${redactRedisUrl(vars.url)}`,
    variable: 'REDIS_URL',
  });
}
