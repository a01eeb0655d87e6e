// Ends a thread of an export as it is sent a given request, for tests of an export whose thread
// dies midway: every thread the export starts is watched (renderThreadStarted), and the first one
// sent a request that `ends` accepts is terminated as it is sent (the request still goes).

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Transferable, Worker } from 'node:worker_threads';
import { renderThreadStarted } from '../../src/export/answering-thread.js';

export interface ThreadEnder {
  /** How many threads were ended: 0 or 1. */
  readonly ended: number;
  /** Stops watching the threads started from now on. */
  stop(): void;
}

/** Watches the threads started from now on; `ends` sees each request's kind ('cut', 'rows', …). */
export function endThreadWhenSent(ends: (kind: string | undefined) => boolean): ThreadEnder {
  let ended = 0;
  const onStart = (message: unknown): void => {
    const thread = (message as { thread: Worker }).thread;
    const post = thread.postMessage.bind(thread);
    thread.postMessage = (value: unknown, transfer?: readonly Transferable[]): void => {
      const request = (value as { request?: { kind?: string } }).request;
      if (ended === 0 && ends(request?.kind)) {
        ended++;
        void thread.terminate();
      }
      post(value, transfer);
    };
  };
  subscribe(renderThreadStarted.name, onStart);
  return {
    get ended() {
      return ended;
    },
    stop: () => unsubscribe(renderThreadStarted.name, onStart),
  };
}
