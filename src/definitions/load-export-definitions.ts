// Owns loading the export definitions: EXPORTS_FILE read, parsed as YAML with positions kept,
// checked entry by entry (definition-schema.ts, definition-rules.ts), then across entries (unique
// names, no two dests alike) and against the allowed roots (the destinations' own rule, real paths
// compared). Every problem found is returned, each with its line and column, so one `exports check`
// shows them all. Without EXPORTS_FILE the one definition is the legacy `nightly`.

import { readFile, stat } from 'node:fs/promises';
import { LineCounter, parseDocument, visit, type Document, type YAMLError } from 'yaml';
import type { ExportConfig } from '../config/export-config.js';
import type { ScheduleConfig } from '../config/schedule-config.js';
import { destinationRoots, assertDestinationAllowed } from '../destinations/allowed-destination.js';
import type { ParsedDestination } from '../destination-address.js';
import { ShiftExportError } from '../errors.js';
import {
  sortProblems,
  ExportsFileInvalidError,
  type DefinitionProblem,
  pathText,
} from './definition-problem.js';
import { resolveEntry } from './definition-rules.js';
import {
  definitionEntrySchema,
  definitionsFileSchema,
  plainIssueMessages,
  shown,
} from './definition-schema.js';
import type { ExportDefinition, ExportDefinitions } from './export-definition.js';
import { cronProblem } from './next-runs.js';
import { nightlyDefinition } from './nightly-definition.js';
import { positionAt, positionOfOffset } from './yaml-position.js';
import type { z } from 'zod';

/** The settings the definitions are read with. */
export interface DefinitionSettings {
  readonly schedule: Pick<ScheduleConfig, 'exportsFile' | 'enabled' | 'cron' | 'tz' | 'lookbackDays'>;
  readonly exportConfig: Pick<ExportConfig, 'dest' | 'destAllow' | 'formats' | 'maxDays' | 'reportLang'>;
}

export type DefinitionsResult =
  | { readonly ok: true; readonly definitions: ExportDefinitions }
  | { readonly ok: false; readonly problems: readonly DefinitionProblem[] };

/** A definitions file is a page of settings; past this it is not one. */
export const MAX_EXPORTS_FILE_BYTES = 1024 * 1024;

/** The definitions of EXPORTS_FILE (or the legacy nightly one), or every problem found in it. */
export async function loadExportDefinitions(settings: DefinitionSettings): Promise<DefinitionsResult> {
  const file = settings.schedule.exportsFile;
  if (file === undefined) return legacyDefinitions(settings);
  const read = await readDefinitionsFile(file);
  if (typeof read !== 'string') return { ok: false, problems: [read] };
  return parseExportDefinitions(read, file, settings);
}

/** loadExportDefinitions for a process that cannot go on without them: throws ExportsFileInvalidError. */
export async function requireExportDefinitions(settings: DefinitionSettings): Promise<ExportDefinitions> {
  const result = await loadExportDefinitions(settings);
  if (!result.ok) throw new ExportsFileInvalidError(result.problems);
  return result.definitions;
}

function legacyDefinitions(settings: DefinitionSettings): DefinitionsResult {
  const { schedule } = settings;
  const why = schedule.enabled ? cronProblem(schedule.cron) : undefined;
  if (why !== undefined) {
    const problem = { file: 'NIGHTLY_CRON', line: undefined, column: undefined, path: '' };
    return {
      ok: false,
      problems: [{ ...problem, message: `${shown(schedule.cron)} is not a cron pattern: ${why}` }],
    };
  }
  const definitions = Object.freeze([nightlyDefinition(schedule, settings.exportConfig)]);
  return {
    ok: true,
    definitions: Object.freeze({ source: Object.freeze({ kind: 'settings' }), definitions }),
  };
}

/** The file's text, or the problem of the whole file. */
async function readDefinitionsFile(file: string): Promise<string | DefinitionProblem> {
  const problem = (message: string): DefinitionProblem => ({
    file,
    line: undefined,
    column: undefined,
    path: '',
    message,
  });
  try {
    const info = await stat(file);
    if (info.isDirectory()) return problem('is a folder, not a file (EXPORTS_FILE names the YAML file)');
    if (info.size > MAX_EXPORTS_FILE_BYTES)
      return problem(
        `is ${info.size} bytes, more than a definitions file may be (${MAX_EXPORTS_FILE_BYTES})`,
      );
    const bytes = await readFile(file);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return problem('is not UTF-8 text');
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT') return problem('cannot be read: there is no such file (ENOENT)');
    if (code === 'EACCES' || code === 'EPERM') return problem(`cannot be read: permission denied (${code})`);
    return problem(`cannot be read (${code})`);
  }
}

/** Checks the text of a definitions file named `file` (for messages); the loader's work after reading. */
export async function parseExportDefinitions(
  text: string,
  file: string,
  settings: DefinitionSettings,
): Promise<DefinitionsResult> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const problems: DefinitionProblem[] = [];
  const at = (path: readonly PropertyKey[], message: string, atKey = false): void => {
    const { line, column } = positionAt(doc, lineCounter, path, atKey);
    problems.push({ file, line, column, path: pathText(path), message });
  };

  // One problem per line: after the first, the parser's further errors on a line are its echoes.
  const linesWithErrors = new Set<number>();
  for (const error of [...doc.errors, ...doc.warnings].sort((a, b) => a.pos[0] - b.pos[0])) {
    const { line, column } = positionOfOffset(lineCounter, error.pos[0]);
    if (linesWithErrors.has(line)) continue;
    linesWithErrors.add(line);
    problems.push({ file, line, column, path: '', message: `invalid YAML: ${yamlMessage(error)}` });
  }
  if (problems.length > 0) return { ok: false, problems: sortProblems(problems) };
  const data = documentValue(doc, lineCounter, file, problems);
  if (problems.length > 0) return { ok: false, problems: sortProblems(problems) };
  if (data === null || data === undefined) {
    at([], 'is empty: expected exports: with a list of export definitions');
    return { ok: false, problems };
  }

  const top = definitionsFileSchema.safeParse(data, { error: plainIssueMessages, reportInput: true });
  if (!top.success) addIssues(top.error.issues, [], at);
  const entries: readonly unknown[] = top.success
    ? top.data.exports
    : Array.isArray((data as { exports?: unknown }).exports)
      ? (data as { exports: unknown[] }).exports
      : [];

  const resolved: { index: number; definition: ExportDefinition }[] = [];
  entries.forEach((entry, index) => {
    const parsed = definitionEntrySchema.safeParse(entry, { error: plainIssueMessages, reportInput: true });
    if (!parsed.success) {
      addIssues(parsed.error.issues, ['exports', index], at);
      return;
    }
    const { definition, problems: entryProblems } = resolveEntry(parsed.data, settings.exportConfig);
    for (const p of entryProblems) at(['exports', index, ...p.path], p.message);
    if (definition !== undefined) resolved.push({ index, definition });
  });
  checkUniqueNames(entries, at, (index) => positionAt(doc, lineCounter, ['exports', index, 'name']).line);
  checkDistinctDests(resolved, at);
  await checkAllowedDests(resolved, settings.exportConfig, at);

  if (problems.length > 0) return { ok: false, problems: sortProblems(problems) };
  return {
    ok: true,
    definitions: Object.freeze({
      source: Object.freeze({ kind: 'file', file }),
      definitions: Object.freeze(resolved.map((r) => r.definition)),
    }),
  };
}

type At = (path: readonly PropertyKey[], message: string, atKey?: boolean) => void;

/** An alias where none was meant is mostly an unquoted cron pattern: `*` is YAML's alias mark. */
const QUOTE_HINT = 'quote a value that starts with *, e.g. cron: "* * * * *"';

/** yaml's message without the place it appends (the line says where), with a hint for a stray alias. */
function yamlMessage(error: YAMLError): string {
  const message = (error.message.split('\n')[0] ?? error.message).replace(/ at line \d+, column \d+:?$/, '');
  return /alias/i.test(message) ? `${message} (${QUOTE_HINT})` : message;
}

/**
 * The document as plain data. An alias whose anchor is missing is reported where it stands: in a
 * definition it is mostly an unquoted cron pattern (`cron: * * * * *` starts with `*`, YAML's alias
 * mark).
 */
function documentValue(
  doc: Document,
  lineCounter: LineCounter,
  file: string,
  problems: DefinitionProblem[],
): unknown {
  visit(doc, {
    Alias(_, node) {
      if (node.resolve(doc) !== undefined) return;
      const { line, column } = positionOfOffset(lineCounter, node.range?.[0] ?? 0);
      problems.push({
        file,
        line,
        column,
        path: '',
        message: `invalid YAML: *${node.source} is an alias without an anchor (${QUOTE_HINT})`,
      });
    },
  });
  if (problems.length > 0) return undefined;
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    problems.push({
      file,
      line: 1,
      column: 1,
      path: '',
      message: `invalid YAML: ${error instanceof Error ? error.message : String(error)}`,
    });
    return undefined;
  }
}

/** zod's issues as problems; an unknown key is pointed at where it is written. */
function addIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[], at: At): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) at([...path, key], issue.message, true);
    } else {
      at(path, issue.message);
    }
  }
}

function checkUniqueNames(entries: readonly unknown[], at: At, lineOf: (index: number) => number): void {
  const first = new Map<string, number>();
  entries.forEach((entry, index) => {
    const name = (entry as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') return;
    const earlier = first.get(name);
    if (earlier === undefined) first.set(name, index);
    else
      at(
        ['exports', index, 'name'],
        `${shown(name)} is already the name of exports[${earlier}] (line ${lineOf(earlier)})`,
      );
  });
}

function destinationKey(destination: ParsedDestination): string {
  return destination.kind === 'local'
    ? `local:${destination.dir}`
    : `s3:${destination.bucket}/${destination.prefix}`;
}

function checkDistinctDests(
  resolved: readonly { index: number; definition: ExportDefinition }[],
  at: At,
): void {
  const first = new Map<string, { index: number; definition: ExportDefinition }>();
  for (const entry of resolved) {
    const key = destinationKey(entry.definition.destination);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, entry);
    // Two definitions of one name share its default dest too: the name's problem says it all.
    else if (earlier.definition.name !== entry.definition.name)
      at(
        ['exports', entry.index, 'dest'],
        `${shown(entry.definition.dest)} is also the dest of exports[${earlier.index}] (${earlier.definition.name}): each definition needs its own`,
      );
  }
}

async function checkAllowedDests(
  resolved: readonly { index: number; definition: ExportDefinition }[],
  exportConfig: DefinitionSettings['exportConfig'],
  at: At,
): Promise<void> {
  const roots = destinationRoots(exportConfig);
  const refusals = await Promise.all(
    resolved.map(({ definition }) =>
      // The dest as written, so that the message quotes it as the file has it.
      assertDestinationAllowed(definition.dest, roots).then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof ShiftExportError) return error.message;
          throw error;
        },
      ),
    ),
  );
  refusals.forEach((message, i) => {
    const entry = resolved[i];
    if (message !== undefined && entry !== undefined) at(['exports', entry.index, 'dest'], message);
  });
}
