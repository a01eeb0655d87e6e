import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { commandLogger } from '../../src/cli/command-logger.js';
import { silentLogger } from '../../src/logger.js';

function io(level: string | undefined, isTTY: boolean): CliIo & { lines: string[] } {
  const lines: string[] = [];
  const stderr = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString('utf8'));
        callback();
      },
    }),
    { isTTY },
  );
  return {
    stdout: new Writable({ write: (_c, _e, cb) => cb() }),
    stderr,
    env: level === undefined ? {} : { LOG_LEVEL: level },
    lines,
  };
}

describe('commandLogger', () => {
  it('keeps the queue commands quiet at info and warn, on a terminal or not', () => {
    for (const level of ['info', 'warn']) {
      expect(commandLogger(io(level, false), 'queue')).toBe(silentLogger);
      expect(commandLogger(io(level, true), 'queue')).toBe(silentLogger);
    }
  });

  it('lets a queue command tell its story as JSON lines on stderr at debug', () => {
    const out = io('debug', false);
    commandLogger(out, 'queue').debug({ step: 'connect' }, 'connecting');
    expect(out.lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toMatchObject([
      { step: 'connect', msg: 'connecting' },
    ]);
  });

  it('keeps run quiet on a terminal at the default level, where the progress line speaks', () => {
    expect(commandLogger(io(undefined, true), 'run')).toBe(silentLogger);
    const warnOnTerminal = io('warn', true);
    commandLogger(warnOnTerminal, 'run').warn('slow upstream');
    expect(warnOnTerminal.lines).toHaveLength(1);
  });

  it('gives run its JSON lines piped (the record of a cron export), or on a terminal when LOG_LEVEL is set', () => {
    for (const [level, isTTY] of [
      [undefined, false],
      ['info', false],
      ['info', true],
    ] as const) {
      const out = io(level, isTTY);
      commandLogger(out, 'run').info('export published');
      expect(out.lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toMatchObject([
        { msg: 'export published' },
      ]);
    }
  });

  it('keeps demo quiet at the default level on a terminal or piped, and logs when LOG_LEVEL is set', () => {
    expect(commandLogger(io(undefined, true), 'demo')).toBe(silentLogger);
    expect(commandLogger(io(undefined, false), 'demo')).toBe(silentLogger);
    expect(commandLogger(io('', false), 'demo')).toBe(silentLogger);
    const asked = io('info', false);
    commandLogger(asked, 'demo').info('export published');
    expect(asked.lines).toHaveLength(1);
  });
});
