import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { docOf, envVar, variablesOf } from '../src/config/env-var.js';
import { loadDeclared } from '../src/config/load-config.js';
import { ConfigError } from '../src/errors.js';

const declaration = {
  port: envVar('T_PORT', z.coerce.number().int().min(1).default(80), 'Port.'),
  query: envVar('T_QUERY', z.string().default('a=b'), 'Query; empty: none.', { emptyIsAValue: true }),
  limits: {
    sizeBytes: envVar(
      'T_SIZE_MB',
      z.coerce
        .number()
        .default(2)
        .transform((mb) => mb * 1024 * 1024),
      'Size.',
    ),
    host: envVar('T_HOST', z.string().optional(), 'Host.', { docDefault: '(any)' }),
  },
};

describe('loadDeclared', () => {
  it('reads each field from its variable, defaults when unset, and freezes every level', () => {
    const loaded = loadDeclared({ T_PORT: '8080', T_HOST: 'h' }, declaration);
    expect(loaded).toEqual({ port: 8080, query: 'a=b', limits: { sizeBytes: 2 * 1024 * 1024, host: 'h' } });
    expect(Object.isFrozen(loaded) && Object.isFrozen(loaded.limits)).toBe(true);
  });

  it('takes an empty value as unset, unless emptiness is a setting of the variable', () => {
    expect(loadDeclared({ T_PORT: '', T_QUERY: '' }, declaration)).toMatchObject({ port: 80, query: '' });
  });

  it('stops at the first bad variable with one line naming it', () => {
    const load = () => loadDeclared({ T_PORT: 'x', T_SIZE_MB: 'y' }, declaration);
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/^T_PORT is invalid \("x"\): /);
  });
});

describe('docOf', () => {
  it('reads the description and the default from the schema, or the declared text', () => {
    const docs = variablesOf(declaration).map((v) => [v.name, docOf(v)]);
    expect(Object.fromEntries(docs)).toEqual({
      T_PORT: { default: '80', description: 'Port.', value: '80' },
      T_QUERY: { default: 'a=b', description: 'Query; empty: none.', value: 'a=b' },
      T_SIZE_MB: { default: '2', description: 'Size.', value: '2' },
      T_HOST: { default: '(any)', description: 'Host.', value: undefined },
    });
  });
});
