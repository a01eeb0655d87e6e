import { describe, expect, it } from 'vitest';
import { BodyBytes } from '../../src/wfm/body-bytes.js';

describe('BodyBytes', () => {
  it('adds every count to the tallies it rolls up into, and to nothing else', () => {
    const client = new BodyBytes();
    const read = new BodyBytes();
    const other = new BodyBytes(client);
    const body = new BodyBytes(client, read, undefined);
    body.addWire(10);
    body.addDecoded(40);
    other.addWire(5);
    expect([body.wireBytes, body.decodedBytes]).toEqual([10, 40]);
    expect([read.wireBytes, read.decodedBytes]).toEqual([10, 40]);
    expect([client.wireBytes, client.decodedBytes]).toEqual([15, 40]);
  });
});
