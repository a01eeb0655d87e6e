// Owns how an environment variable is declared and documented. A variable is declared once, in the
// file of its group of settings (wfm-config.ts, s3-config.ts, …), as an EnvVar: its name and a zod
// schema carrying its validation, its default and its description (zod metadata). A declaration
// maps config fields to variables (or to nested groups of them); its config type is inferred from
// the schemas, load-config.ts loads it into a frozen object, and its docs (docs/configuration.md,
// .env.example: config-docs.ts) are read from the same schemas.

import { z } from 'zod';

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

/** The variables of a declaration, depth first in declaration order. */
export function variablesOf(declaration: Declaration): EnvVar[] {
  return Object.values(declaration).flatMap((item) => (item instanceof EnvVar ? [item] : variablesOf(item)));
}

/** A variable's documentation, read from its schema. */
export interface VarDoc {
  /** The default as the docs show it: the schema's default, else the declared text, else "(none)". */
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
