// A process's stop as one ordered list of bounded steps. Each step has a name, a deadline and a log
// line: "done" with how long it took, or "cut short" with its deadline, after which the sequence
// goes on to the next step. Nothing a step waits for can hold the stop past the sum of the
// deadlines: a library's close() that waits on Redis forever (Redis down, or a command that a
// failover orphaned inside ioredis) is cut short, named in the log, and the process still exits.
// Whether a cut-short step matters for the exit code is the step's own word (`critical`): a running
// export that was neither finished nor handed back does; a connection that could not say QUIT does
// not.

import type { Logger } from '../src/logger.js';

export interface ShutdownStep {
  /** kebab-case, stable: the log's `step` field (docs/operations.md lists them). */
  readonly name: string;
  readonly deadlineMs: number;
  /** What the step waits for. It is not awaited past the deadline. */
  run(): Promise<unknown>;
  /** Called when the deadline (or hurry()) ends the wait first: abort what the step waited for. */
  readonly onCutShort?: () => void;
  /** A second signal may end this step's wait at once (the grace period). */
  readonly hurryable?: boolean;
  /** Cut short, this step leaves work undone: the stop is not clean (the worker then exits 1). */
  readonly critical?: boolean;
}

export interface ShutdownOutcome {
  /** Steps whose wait ended at their deadline (or by hurry()), in order. */
  readonly cutShort: readonly string[];
  /** True when no critical step was cut short. */
  readonly clean: boolean;
}

export class ShutdownSequence {
  private hurryCurrent: (() => void) | undefined;
  private hurried = false;

  constructor(
    private readonly steps: readonly ShutdownStep[],
    private readonly logger: Logger,
  ) {}

  /** A second signal: ends the wait of the current hurryable step, and of any still to come. */
  hurry(): void {
    this.hurried = true;
    this.hurryCurrent?.();
  }

  async run(): Promise<ShutdownOutcome> {
    const cutShort: string[] = [];
    let clean = true;
    for (const step of this.steps) {
      const started = performance.now();
      const ended = await this.within(step);
      const ms = Math.round(performance.now() - started);
      if (ended === 'done') {
        this.logger.info({ step: step.name, ms }, `stop step ${step.name}: done`);
        continue;
      }
      cutShort.push(step.name);
      if (step.critical === true) clean = false;
      this.logger.warn(
        { step: step.name, ms, deadlineMs: step.deadlineMs, cutBy: ended },
        `stop step ${step.name}: cut short ${ended === 'hurried' ? 'by a second signal' : `after ${step.deadlineMs} ms`}`,
      );
      step.onCutShort?.();
    }
    return { cutShort, clean };
  }

  private within(step: ShutdownStep): Promise<'done' | 'deadline' | 'hurried'> {
    return new Promise((resolve) => {
      let settled = false;
      const timer = setTimeout(() => finish('deadline'), step.deadlineMs);
      const finish = (how: 'done' | 'deadline' | 'hurried'): void => {
        // A step that ends after its deadline must not touch the next step's hurry.
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.hurryCurrent = undefined;
        resolve(how);
      };
      if (step.hurryable === true) {
        if (this.hurried) return finish('hurried');
        this.hurryCurrent = () => finish('hurried');
      }
      // A step that fails has still ended (a close() that finds its connection gone).
      step.run().then(
        () => finish('done'),
        (error: unknown) => {
          this.logger.debug({ step: step.name, err: error }, `stop step ${step.name}: ended with an error`);
          finish('done');
        },
      );
    });
  }
}
