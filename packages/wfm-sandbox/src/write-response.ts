// Writes a response body straight to the socket (the reply is hijacked from fastify) so that the
// sandbox controls every byte: backpressure (wait for 'drain'), a client that goes away (stop
// generating), the Content-Encoding (gzip, deflate, br compressed as the body streams; any other
// name labels the plain bytes) and the body faults — reset (destroy the socket after N bytes),
// truncate (end the body cleanly after N bytes), stall (send N bytes, then hang until the client
// or close() ends the connection) and trickle (send the body at a few bytes a second).
//
// N counts bytes of the body before compression, so a fault hits the same rows whatever the client
// accepts; a compressed body is flushed up to that point before the socket breaks or stalls, and a
// truncated one ends as a complete compressed stream of the short body. A trickle paces the bytes
// on the wire, after compression.

import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Transform } from 'node:stream';
import { createBrotliCompress, createDeflate, createGzip, constants as zlib } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import type { BodyFault } from './fault-controller.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface RawBody {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly chunks: Iterable<Buffer> | AsyncIterable<Buffer>;
  readonly fault: BodyFault | undefined;
  /** Content-Encoding: identity (default); gzip, deflate, br compress; another name labels the plain body. */
  readonly encoding?: string;
}

/**
 * gzip level 1, nginx's default: on the report's JSON 181 bytes a row against level 6's 133
 * (identity: 950) for half its CPU, which matters when the sandbox shares two cores with the
 * client it serves.
 */
const GZIP_LEVEL = 1;

/** A trickle writes at least every this many ms, so a few bytes a second arrive as a few bytes. */
const TRICKLE_TICK_MS = 100;

/** gzip, deflate and brotli compressors alike: a Transform that can flush what it holds. */
type Compressor = Transform & { flush(callback: () => void): void };

const COMPRESSORS: Readonly<Record<string, () => Compressor>> = {
  gzip: () => createGzip({ level: GZIP_LEVEL }),
  deflate: () => createDeflate({ level: GZIP_LEVEL }),
  br: () => createBrotliCompress({ params: { [zlib.BROTLI_PARAM_QUALITY]: 1 } }),
};

/** The encodings the sandbox picks itself when a request accepts them (forced ones aside). */
export function negotiateEncoding(acceptEncoding: string | undefined): 'gzip' | 'identity' {
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (name !== 'gzip' && name !== '*') continue;
    const q = params.find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return 'gzip';
  }
  return 'identity';
}

export async function writeRawBody(reply: FastifyReply, body: RawBody): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  try {
    await writeBody(res, body);
  } catch (error) {
    // Headers are gone already: the only honest way to report a failure is a broken body.
    reply.log.error({ err: error }, 'sandbox: response body failed');
    res.destroy();
  }
}

async function writeBody(res: ServerResponse, body: RawBody): Promise<void> {
  // A client that disconnects mid-body is normal here; the 'close' check below ends the loop.
  res.on('error', () => undefined);
  const encoding = body.encoding ?? 'identity';
  res.writeHead(body.status, {
    'content-type': JSON_CONTENT_TYPE,
    ...(encoding === 'identity' ? {} : { 'content-encoding': encoding, vary: 'accept-encoding' }),
    ...body.headers,
  });
  // Headers go out now, so a fault at byte 0 still hits a started response.
  res.flushHeaders();
  const closed = event(res, 'close');
  const fault = body.fault;
  const cut = fault?.kind === 'trickle' ? undefined : fault;
  const wire = new Wire(res, closed, fault?.kind === 'trickle' ? fault.bytesPerSecond : undefined);
  const out = encoderFor(encoding, wire, closed);
  try {
    let sent = 0;
    for await (const chunk of body.chunks) {
      if (res.destroyed) return;
      if (cut !== undefined && sent + chunk.length >= cut.afterBytes) {
        const head = chunk.subarray(0, cut.afterBytes - sent);
        if (head.length > 0) await out.write(head);
        await applyFault(res, cut.kind, out, closed);
        return;
      }
      sent += chunk.length;
      await out.write(chunk);
    }
    // The body was shorter than the fault's byte count: fail at its very end instead.
    if (cut !== undefined) await applyFault(res, cut.kind, out, closed);
    else await out.end();
  } finally {
    out.destroy();
  }
}

async function applyFault(
  res: ServerResponse,
  kind: 'reset' | 'truncate' | 'stall',
  out: BodyEncoder,
  closed: Promise<void>,
): Promise<void> {
  if (kind === 'truncate') {
    await out.end();
    return;
  }
  await out.flush();
  if (kind === 'reset') res.socket?.destroy();
  else await closed;
}

/** The socket side: backpressure, and the pace of a trickle. */
class Wire {
  readonly #res: ServerResponse;
  readonly #closed: Promise<void>;
  /** Undefined: as fast as the client reads. */
  readonly #trickle: { readonly tickMs: number; readonly bytesPerTick: number } | undefined;
  /** Settles once the last write reached the socket (or failed). */
  #written: Promise<void> = Promise.resolve();

  constructor(res: ServerResponse, closed: Promise<void>, bytesPerSecond: number | undefined) {
    this.#res = res;
    this.#closed = closed;
    if (bytesPerSecond !== undefined) {
      const tickMs = Math.max(TRICKLE_TICK_MS, 1000 / bytesPerSecond);
      this.#trickle = { tickMs, bytesPerTick: Math.max(1, Math.round((bytesPerSecond * tickMs) / 1000)) };
    }
  }

  async write(chunk: Buffer): Promise<void> {
    const res = this.#res;
    const trickle = this.#trickle;
    if (trickle === undefined) {
      if (!res.destroyed && !this.#write(chunk)) await Promise.race([event(res, 'drain'), this.#closed]);
      return;
    }
    for (let at = 0; at < chunk.length && !res.destroyed; at += trickle.bytesPerTick) {
      this.#write(chunk.subarray(at, at + trickle.bytesPerTick));
      await Promise.race([delay(trickle.tickMs), this.#closed]);
    }
  }

  /** Resolves once everything written so far reached the socket: before a fault breaks it. */
  flushed(): Promise<void> {
    return this.#written;
  }

  end(): void {
    this.#res.end();
  }

  #write(chunk: Buffer): boolean {
    let ok = true;
    this.#written = new Promise((resolve) => {
      ok = this.#res.write(chunk, () => resolve());
    });
    return ok;
  }
}

/** Turns body bytes into encoded bytes on the wire. */
interface BodyEncoder {
  write(chunk: Buffer): Promise<void>;
  /** What was written so far goes out (a compressor holds bytes back otherwise). */
  flush(): Promise<void>;
  /** The body is complete: finish the encoding and end the response. */
  end(): Promise<void>;
  /** Frees what is left (a client that went away mid-body, a fault). */
  destroy(): void;
}

function encoderFor(encoding: string, wire: Wire, closed: Promise<void>): BodyEncoder {
  const compressor = COMPRESSORS[encoding]?.();
  if (compressor === undefined) {
    return {
      write: (chunk) => wire.write(chunk),
      flush: () => wire.flushed(),
      end: () => Promise.resolve(wire.end()),
      destroy: () => undefined,
    };
  }
  // The compressor's output goes to the wire at the wire's pace; its input waits for 'drain'.
  const pump = (async () => {
    try {
      for await (const chunk of compressor) await wire.write(chunk as Buffer);
    } catch {
      // Destroyed: the body ended early (a fault, a client gone).
    }
  })();
  return {
    async write(chunk) {
      if (!compressor.write(chunk)) await Promise.race([once(compressor, 'drain'), closed]);
    },
    async flush() {
      await new Promise<void>((resolve) => compressor.flush(() => resolve()));
      // Let the pump hand the flushed bytes to the socket.
      await new Promise((resolve) => setImmediate(resolve));
      await wire.flushed();
    },
    async end() {
      compressor.end();
      await pump;
      wire.end();
    },
    destroy: () => void compressor.destroy(),
  };
}

/** Resolves on the event; never rejects (an 'error' is followed by 'close' anyway). */
function event(res: ServerResponse, name: 'close' | 'drain'): Promise<void> {
  return new Promise((resolve) => res.once(name, () => resolve()));
}
