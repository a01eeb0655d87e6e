// The destinations the API reads from (downloads, health): one per destination text, created on
// first use and kept, so an S3 client and its sockets are reused across requests.

import type { S3Config } from '../config.js';
import { createDestination, type AnyDestination } from '../destinations/create-destination.js';
import type { Logger } from '../logger.js';

export class DestinationPool {
  readonly #defaultDest: string;
  readonly #s3Config: () => S3Config;
  readonly #logger: Logger;
  readonly #made = new Map<string, AnyDestination>();

  constructor(defaultDest: string, s3Config: () => S3Config, logger: Logger) {
    this.#defaultDest = defaultDest;
    this.#s3Config = s3Config;
    this.#logger = logger;
  }

  /** The destination of a job: its own `dest`, else EXPORT_DEST. */
  get(dest: string | undefined): AnyDestination {
    const text = dest ?? this.#defaultDest;
    let destination = this.#made.get(text);
    if (destination === undefined) {
      destination = createDestination(text, this.#s3Config, this.#logger);
      this.#made.set(text, destination);
    }
    return destination;
  }

  close(): void {
    for (const d of this.#made.values()) if ('close' in d) d.close();
    this.#made.clear();
  }
}
