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
  return { stdout: new Writable({ write: (_c, _e, cb) => cb() }), stderr, env: { LOG_LEVEL: level }, lines };
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

  it('keeps run and demo quiet at info only on a terminal, where the progress line speaks', () => {
    expect(commandLogger(io('info', true), 'export')).toBe(silentLogger);
    const piped = io('info', false);
    commandLogger(piped, 'export').info('export published');
    expect(piped.lines).toHaveLength(1);
    const warnOnTerminal = io('warn', true);
    commandLogger(warnOnTerminal, 'export').warn('slow upstream');
    expect(warnOnTerminal.lines).toHaveLength(1);
  });
});
