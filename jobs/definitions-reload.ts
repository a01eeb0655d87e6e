// Reading the export definitions again without a restart (SIGHUP): the file is loaded, checked
// against the worker's SMTP settings, and its schedules reconciled under the schedules lock; only
// then is it in force. A file that fails any of these keeps the definitions and schedules in force
// and logs one error line. One reload at a time: a second SIGHUP during a reload waits for it, then
// reads the file again.

import { formatProblem } from '../src/definitions/definition-problem.js';
import type { ExportDefinitions } from '../src/definitions/export-definition.js';
import type { DefinitionsResult } from '../src/definitions/load-export-definitions.js';
import { ConfigError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';

export interface DefinitionsInForce {
  /** The definitions in force: the file as last loaded successfully. */
  current(): ExportDefinitions;
  /** Resolves whether the file read again is now in force. */
  reload(): Promise<boolean>;
}

export interface DefinitionsReloadParts {
  readonly initial: ExportDefinitions;
  readonly load: () => Promise<DefinitionsResult>;
  /** Throws ConfigError when the set cannot run on this worker (e-mail without SMTP_URL). */
  readonly check: (set: ExportDefinitions) => void;
  /** Writes the set's Job Schedulers; what the log says of the change. */
  readonly reconcile: (
    set: ExportDefinitions,
  ) => Promise<{ readonly upserted: readonly string[]; readonly removed: readonly string[] }>;
  readonly logger: Logger;
}

/** What the log says of a set of definitions: where they came from and their names. */
export function definitionsSource(set: ExportDefinitions): {
  readonly file: string | null;
  readonly names: string[];
} {
  return {
    file: set.source.kind === 'file' ? set.source.file : null,
    names: set.definitions.map((d) => d.name),
  };
}

export function definitionsInForce(parts: DefinitionsReloadParts): DefinitionsInForce {
  const { logger } = parts;
  let definitions = parts.initial;
  const refuse = (reason: string, extra: Record<string, unknown> = {}): false => {
    logger.error(
      { ...extra, schedules: 'unchanged' },
      `export definitions not reloaded, the schedules in force are kept: ${reason}`,
    );
    return false;
  };
  const reloadOnce = async (): Promise<boolean> => {
    const loaded = await parts.load().catch((error: unknown): DefinitionsResult => ({
      ok: false,
      problems: [
        {
          file: 'EXPORTS_FILE',
          line: undefined,
          column: undefined,
          path: '',
          message: error instanceof Error ? error.message : String(error),
        },
      ],
    }));
    if (!loaded.ok) {
      const [first] = loaded.problems;
      const more = loaded.problems.length > 1 ? ` (and ${loaded.problems.length - 1} more)` : '';
      return refuse(`${first === undefined ? 'invalid' : formatProblem(first)}${more}`, {
        problems: loaded.problems.map(formatProblem),
      });
    }
    try {
      parts.check(loaded.definitions);
    } catch (error) {
      return refuse(error instanceof ConfigError ? error.message : String(error));
    }
    try {
      const reconciled = await parts.reconcile(loaded.definitions);
      definitions = loaded.definitions;
      logger.info(
        {
          definitions: definitionsSource(definitions),
          schedules: reconciled.upserted,
          schedulesRemoved: reconciled.removed,
        },
        'export definitions reloaded',
      );
      return true;
    } catch (error) {
      logger.error({ err: error }, 'export definitions not reloaded: the schedules could not be written');
      return false;
    }
  };
  let reloading: Promise<boolean> = Promise.resolve(true);
  return {
    current: () => definitions,
    reload: () => {
      reloading = reloading.then(reloadOnce);
      return reloading;
    },
  };
}
