// The one count of response-body bytes, on the wire and decoded. Each body counts into its own
// tally, which adds every count to the tallies it rolls up into (the client's lifetime traffic, a
// report read over all its attempts), so the body, its read guard, the client and the reader never
// count the same bytes twice.

export class BodyBytes {
  #wire = 0;
  #decoded = 0;
  readonly #into: readonly BodyBytes[];

  constructor(...into: readonly (BodyBytes | undefined)[]) {
    this.#into = into.filter((tally) => tally !== undefined);
  }

  /** Bytes received on the wire (compressed, when the body is). */
  get wireBytes(): number {
    return this.#wire;
  }

  /** Bytes of decoded body handed to the reader. */
  get decodedBytes(): number {
    return this.#decoded;
  }

  addWire(bytes: number): void {
    this.#wire += bytes;
    for (const tally of this.#into) tally.addWire(bytes);
  }

  addDecoded(bytes: number): void {
    this.#decoded += bytes;
    for (const tally of this.#into) tally.addDecoded(bytes);
  }
}
