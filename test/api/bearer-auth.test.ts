import { describe, expect, it } from 'vitest';
import { credentialOf, tokenChecker } from '../../src/api/bearer-auth.js';

describe('tokenChecker', () => {
  const checker = tokenChecker(['alpha-token', 'beta-token']);

  it('accepts each configured token and nothing else', () => {
    expect(checker.matches('alpha-token')).toBe(true);
    expect(checker.matches('beta-token')).toBe(true);
    expect(checker.matches('alpha-toke')).toBe(false);
    expect(checker.matches('alpha-token ')).toBe(false);
    expect(checker.matches('')).toBe(false);
  });

  it('accepts nothing when there are no tokens', () => {
    expect(tokenChecker([]).matches('')).toBe(false);
  });
});

describe('credentialOf', () => {
  it('reads a bearer token, whatever the case of the scheme', () => {
    expect(credentialOf('Bearer abc', false)).toBe('abc');
    expect(credentialOf('bearer abc', false)).toBe('abc');
  });

  it('reads the password of Basic auth only where allowed', () => {
    const basic = `Basic ${Buffer.from('ops:s3cr:et').toString('base64')}`;
    expect(credentialOf(basic, true)).toBe('s3cr:et');
    expect(credentialOf(basic, false)).toBeUndefined();
  });

  it('finds nothing in a missing or malformed header', () => {
    expect(credentialOf(undefined, true)).toBeUndefined();
    expect(credentialOf('Bearer', true)).toBeUndefined();
    expect(credentialOf('Token abc', true)).toBeUndefined();
    expect(credentialOf('Bearer a b', true)).toBeUndefined();
  });
});
