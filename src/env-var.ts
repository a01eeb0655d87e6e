// Owns how an environment variable is declared, parsed and documented. A variable is declared once
// (src/config.ts) as an EnvVar: its name and a zod schema carrying its validation, its default and
// its description (zod metadata). A declaration maps config fields to variables (or to nested
// groups of them); its config type is inferred from the schemas, it loads into a frozen object,
// and its docs (README's table, .env.example: src/config-docs.ts) are read from the same schemas.
// Values are passed in: src/config.ts stays the only reader of process.env.

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { redactSecrets, secretValuesOf, shownValue } from './redact-secrets.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** One environment variable: its name, and the schema that validates it and documents it. */
export class EnvVar<N extends string = string, S extends z.ZodType = z.ZodType> {
  constructor(
    readonly name: N,
    readonly schema: S,
    /** Whether an empty value is a setting of its own; otherwise it means "unset". */
    readonly emptyIsAValue: boolean,
  ) {}
}

interface EnvVarOptions {
  /** The default as the docs show it, for a variable whose schema has no default value. */
  readonly docDefault?: string;
  readonly emptyIsAValue?: boolean;
}

/** Declares `name`: `schema` validates it and holds its default; the description joins its meta. */
export function envVar<const N extends string, S extends z.ZodType>(
  name: N,
  schema: S,
  description: string,
  { docDefault, emptyIsAValue = false }: EnvVarOptions = {},
): EnvVar<N, S> {
  const meta = docDefault === undefined ? { description } : { description, docDefault };
  return new EnvVar(name, schema.meta(meta) as S, emptyIsAValue);
}

/** The fields of a config object: each a variable, or a group of them (a nested frozen object). */
export interface Declaration {
  readonly [field: string]: EnvVar | Declaration;
}

/** The frozen config object a declaration loads into. */
export type Loaded<D extends Declaration> = {
  readonly [K in keyof D]: D[K] extends EnvVar<string, infer S>
    ? z.output<S>
    : D[K] extends Declaration
      ? Loaded<D[K]>
      : never;
};

/** The names of the variables a declaration reads. */
export type NamesOf<D extends Declaration> = {
  [K in keyof D]: D[K] extends EnvVar<infer N> ? N : D[K] extends Declaration ? NamesOf<D[K]> : never;
}[keyof D];

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

/** The variables of a declaration, depth first in declaration order. */
export function variablesOf(declaration: Declaration): EnvVar[] {
  return Object.values(declaration).flatMap((item) => (item instanceof EnvVar ? [item] : variablesOf(item)));
}

/** A variable's documentation, read from its schema. */
export interface VarDoc {
  /** The default as README shows it: the schema's default, else the declared text, else "(none)". */
  readonly default: string;
  readonly description: string;
  /** The default as a value for .env.example; undefined when the schema has none. */
  readonly value: string | undefined;
}

export function docOf(variable: EnvVar): VarDoc {
  const meta = variable.schema.meta() ?? {};
  if (typeof meta.description !== 'string') throw new Error(`${variable.name} has no description`);
  const found = defaultOf(variable.schema);
  const value = found === undefined ? undefined : String(found);
  const docDefault = typeof meta['docDefault'] === 'string' ? meta['docDefault'] : (value ?? '(none)');
  return { default: docDefault, description: meta.description, value };
}

/** The default of a schema, seen through the transforms that follow it. */
function defaultOf(schema: z.ZodType): unknown {
  if (schema instanceof z.ZodDefault) return schema.def.defaultValue;
  if (schema instanceof z.ZodPipe) return defaultOf(schema.in as z.ZodType);
  return undefined;
}

/**
 * The contents of the file a `*_FILE` variable names (a compose or Kubernetes secret, a CA), without
 * surrounding whitespace. The path is not shown in errors: a secret pasted into the variable by
 * mistake would otherwise be printed. `what` says what the file should hold, for the empty case.
 */
export function readFileNamedBy(variable: string, path: string, what?: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(
      `${variable} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): check the path it names`,
      { variable },
    );
  }
  if (text === '')
    throw new ConfigError(
      `${variable} names an empty file${what === undefined ? '' : ` (expected ${what})`}`,
      {
        variable,
      },
    );
  return text;
}
