import { describe, expect, it } from 'vitest';
import { ShutdownSequence, type ShutdownStep } from '../../jobs/shutdown-sequence.js';
import { capturingLogger } from '../queue/support/queue-harness.js';

const never = (): Promise<never> => new Promise<never>(() => undefined);

function step(name: string, run: () => Promise<unknown>, more: Partial<ShutdownStep> = {}): ShutdownStep {
  return { name, deadlineMs: 10_000, run, ...more };
}

describe('ShutdownSequence', () => {
  it('runs the steps in order, each after the one before has ended', async () => {
    const order: string[] = [];
    const { logger, lines } = capturingLogger();
    const sequence = new ShutdownSequence(
      ['a', 'b', 'c'].map((name) =>
        step(name, async () => {
          order.push(`${name} start`);
          await Promise.resolve();
          order.push(`${name} end`);
        }),
      ),
      logger,
    );
    expect(await sequence.run()).toEqual({ cutShort: [], clean: true });
    expect(order).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
    expect(lines.map((l) => [l['step'], l.msg])).toEqual([
      ['a', 'stop step a: done'],
      ['b', 'stop step b: done'],
      ['c', 'stop step c: done'],
    ]);
  });

  it('cuts a step that never ends at its deadline, says so at warn level, aborts it and goes on', async () => {
    const { logger, lines } = capturingLogger();
    let aborted = false;
    let after = false;
    const outcome = await new ShutdownSequence(
      [
        step('hangs', never, { deadlineMs: 20, onCutShort: () => (aborted = true) }),
        step('after', async () => (after = true)),
      ],
      logger,
    ).run();
    expect(outcome).toEqual({ cutShort: ['hangs'], clean: true });
    expect(aborted).toBe(true);
    expect(after).toBe(true);
    const cut = lines.find((l) => l['step'] === 'hangs');
    expect(cut).toMatchObject({
      level: 40,
      deadlineMs: 20,
      cutBy: 'deadline',
      msg: 'stop step hangs: cut short after 20 ms',
    });
  });

  it('calls the stop unclean when a critical step is cut short', async () => {
    const { logger } = capturingLogger();
    const outcome = await new ShutdownSequence(
      [step('hand-back', never, { deadlineMs: 10, critical: true }), step('close', async () => undefined)],
      logger,
    ).run();
    expect(outcome).toEqual({ cutShort: ['hand-back'], clean: false });
  });

  it('counts a step that fails as ended, and logs its error at debug level', async () => {
    const { logger, lines } = capturingLogger();
    const outcome = await new ShutdownSequence(
      [step('quit', () => Promise.reject(new Error('Connection is closed.')))],
      logger,
    ).run();
    expect(outcome).toEqual({ cutShort: [], clean: true });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [20, 'stop step quit: ended with an error'],
      [30, 'stop step quit: done'],
    ]);
  });

  it('ends a hurryable step at once on hurry(), and one that starts after it too, but no other', async () => {
    const { logger, lines } = capturingLogger();
    let started!: () => void;
    const graceStarted = new Promise<void>((resolve) => (started = resolve));
    const sequence = new ShutdownSequence(
      [
        step('grace', () => (started(), never()), { hurryable: true }),
        step('second-grace', never, { hurryable: true }),
        step('close', async () => undefined),
      ],
      logger,
    );
    const running = sequence.run();
    await graceStarted;
    sequence.hurry();
    expect(await running).toEqual({ cutShort: ['grace', 'second-grace'], clean: true });
    expect(lines.filter((l) => l['cutBy'] === 'hurried').map((l) => l.msg)).toEqual([
      'stop step grace: cut short by a second signal',
      'stop step second-grace: cut short by a second signal',
    ]);
  });

  it('leaves the next step alone when a step ends after its deadline', async () => {
    const { logger } = capturingLogger();
    let endLate!: () => void;
    let secondStarted!: () => void;
    const second = new Promise<void>((resolve) => (secondStarted = resolve));
    const sequence = new ShutdownSequence(
      [
        step('late', () => new Promise<void>((resolve) => (endLate = resolve)), { deadlineMs: 10 }),
        step('grace', () => (secondStarted(), never()), { hurryable: true }),
      ],
      logger,
    );
    const running = sequence.run();
    await second;
    endLate();
    await Promise.resolve();
    sequence.hurry();
    expect(await running).toEqual({ cutShort: ['late', 'grace'], clean: true });
  });
});
