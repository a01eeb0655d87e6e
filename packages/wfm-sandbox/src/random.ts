// Seeded randomness of the sandbox. Rows are pure functions of (seed, index), so row i is drawn
// from a hash of both rather than from a shared sequence: any row can be generated alone, in any
// order, by any request. Integer mixing uses Math.imul so everything stays in 32-bit fast paths.

/** A well-mixed 32-bit unsigned hash of one 32-bit value (lowbias32 by Chris Wellons). */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x21f0aaad);
  x ^= x >>> 15;
  x = Math.imul(x, 0x735a2d97);
  x ^= x >>> 15;
  return x >>> 0;
}

/** A 32-bit hash of (seed, salt, index): independent streams per salt. */
export function hash3(seed: number, salt: number, index: number): number {
  return mix32(Math.imul(index, 0x9e3779b1) ^ mix32((seed ^ Math.imul(salt, 0x85ebca6b)) >>> 0));
}

/** A uniform number in [0, 1) from a 32-bit hash. */
export function unit(hash: number): number {
  return hash / 4_294_967_296;
}

/** mulberry32: a tiny sequential generator, good enough for test data and cheap to reseed. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  reseed(seed: number): void {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [min, max], both inclusive. */
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}
