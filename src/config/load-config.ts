// The loader, and the only reader of process.env. A command reads the environment once
// (processEnv, at the CLI's edge) and hands it to the loaders of the groups of settings it needs
// (loadWfmConfig, loadQueueConfig, …: one file per group beside this one); each loader parses its
// group's declared variables here with zod and returns them frozen. A bad value stops the program
// with one line that names the variable and never a secret (redact-secrets.ts: the value of a
// secret-named variable is not shown, other values lose URL userinfo and password=… parameters,
// and so does zod's own text). A command parses only its own groups: `run` does not need API_TOKENS.

import { ConfigError } from '../errors.js';
import { redactSecrets, secretValuesOf, shownValue } from '../redact-secrets.js';
import { EnvVar, type Declaration, type Loaded } from './env-var.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The environment of this process, copied once and frozen: what the CLI hands its commands. */
export function processEnv(): Env {
  return Object.freeze({ ...process.env });
}

/**
 * Parses every variable of `declaration` from env (or its default), in declaration order, and
 * stops at the first bad one with one line naming it. A schema's transform may throw a
 * ConfigError of its own (a list whose entries are checked one by one).
 */
export function loadDeclared<D extends Declaration>(env: Env, declaration: D): Loaded<D> {
  const out: Record<string, unknown> = {};
  for (const [field, item] of Object.entries(declaration)) {
    out[field] = item instanceof EnvVar ? parseVariable(env, item) : loadDeclared(env, item);
  }
  return Object.freeze(out) as Loaded<D>;
}

function parseVariable(env: Env, variable: EnvVar): unknown {
  const { name, schema } = variable;
  const raw = env[name];
  // An empty value means "unset" (the default applies), except where emptiness is itself a
  // documented setting.
  const input = raw === undefined || (raw === '' && !variable.emptyIsAValue) ? undefined : raw;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const secrets = secretValuesOf(env);
  const shown = input === undefined ? 'unset' : shownValue(name, input, secrets);
  // zod's message may quote the input too: it is redacted like the value.
  const why = redactSecrets(result.error.issues[0]?.message ?? 'invalid value', secrets);
  throw new ConfigError(`${name} is invalid (${shown}): ${why}`, { variable: name });
}
