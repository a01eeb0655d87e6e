// The destinations the API reads from (downloads, health): one per destination text, created on
// first use and kept, so an S3 client and its sockets are reused across requests.

import type { S3Config } from '../config/s3-config.js';
import { createDestination, type AnyDestination } from '../destinations/create-destination.js';
import type { Logger } from '../logger.js';

export class DestinationPool {
  readonly #defaultDest: string;
  readonly #s3Config: () => S3Config;
  readonly #logger: Logger;
  readonly #made = new Map<string, Promise<AnyDestination>>();

  constructor(defaultDest: string, s3Config: () => S3Config, logger: Logger) {
    this.#defaultDest = defaultDest;
    this.#s3Config = s3Config;
    this.#logger = logger;
  }

  /** The destination of a job: its own `dest`, else EXPORT_DEST. */
  get(dest: string | undefined): Promise<AnyDestination> {
    const text = dest ?? this.#defaultDest;
    let destination = this.#made.get(text);
    if (destination === undefined) {
      destination = createDestination(text, this.#s3Config, this.#logger);
      this.#made.set(text, destination);
      // A destination that could not be made (a bad dest, a bad S3 setting) is not kept.
      destination.catch(() => this.#made.delete(text));
    }
    return destination;
  }

  async close(): Promise<void> {
    const made = [...this.#made.values()];
    this.#made.clear();
    for (const settled of await Promise.allSettled(made)) {
      if (settled.status === 'fulfilled' && 'close' in settled.value) settled.value.close();
    }
  }
}
