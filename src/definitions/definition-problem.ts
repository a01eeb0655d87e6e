// Owns how a problem of EXPORTS_FILE is told: one line `FILE:LINE:COLUMN: exports[i].field: what is
// wrong`, the form compilers use, so an editor or CI log links each line to its place. A problem of
// the whole file (missing, unreadable) has no place: `FILE: what is wrong`. The loader returns the
// problems as values; a process that cannot go on without definitions (the worker, `run --export`)
// throws them as one ExportsFileInvalidError.

import { ShiftExportError } from '../errors.js';
import { oneLine } from '../one-line.js';

export interface DefinitionProblem {
  /** The file as EXPORTS_FILE names it. */
  readonly file: string;
  /** 1-based line and column of the value (or key) at fault; undefined for the whole file. */
  readonly line: number | undefined;
  readonly column: number | undefined;
  /** `exports[2].schedule.cron`; '' when the problem is not about one field. */
  readonly path: string;
  readonly message: string;
}

/** A zod or YAML path as a definition writer reads it: `exports[2].deliver.email.to[0]`. */
export function pathText(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}

/** The problem's one line (terminal-safe: whatever the file held is escaped). */
export function formatProblem(problem: DefinitionProblem): string {
  const place =
    problem.line === undefined ? problem.file : `${problem.file}:${problem.line}:${problem.column ?? 1}`;
  const field = problem.path === '' ? '' : `${problem.path}: `;
  return oneLine(`${place}: ${field}${problem.message}`);
}

/** Problems in the order of the file (the whole-file ones first), each once. */
export function sortProblems(problems: readonly DefinitionProblem[]): DefinitionProblem[] {
  const seen = new Set<string>();
  return problems
    .map((problem, index) => ({ problem, index }))
    .sort(
      (a, b) =>
        (a.problem.line ?? 0) - (b.problem.line ?? 0) ||
        (a.problem.column ?? 0) - (b.problem.column ?? 0) ||
        a.index - b.index,
    )
    .map(({ problem }) => problem)
    .filter((problem) => {
      const line = formatProblem(problem);
      if (seen.has(line)) return false;
      seen.add(line);
      return true;
    });
}

/** EXPORTS_FILE cannot be used: its problems, each as formatProblem tells it. Never retryable. */
export class ExportsFileInvalidError extends ShiftExportError {
  readonly problems: readonly DefinitionProblem[];

  constructor(problems: readonly DefinitionProblem[]) {
    const [first] = problems;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more: shift-export exports check)` : '';
    super(
      'EXPORTS_FILE_INVALID',
      `${first === undefined ? 'EXPORTS_FILE is invalid' : formatProblem(first)}${more}`,
      {
        details: { problems: problems.map(formatProblem) },
      },
    );
    this.problems = problems;
  }
}
