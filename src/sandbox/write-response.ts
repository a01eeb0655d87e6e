// Writes a response body straight to the socket (the reply is hijacked from fastify) so that the
// sandbox controls every byte: backpressure (wait for 'drain'), a client that goes away (stop
// generating), and the body faults — reset (destroy the socket after N bytes), truncate (end the
// body cleanly after N bytes) and stall (send N bytes, then hang until the client or close() ends
// the connection).

import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { BodyFault } from './fault-controller.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface RawBody {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly chunks: Iterable<Buffer> | AsyncIterable<Buffer>;
  readonly fault: BodyFault | undefined;
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
  res.writeHead(body.status, { 'content-type': JSON_CONTENT_TYPE, ...body.headers });
  // Headers go out now, so a fault at byte 0 still hits a started response.
  res.flushHeaders();
  const closed = event(res, 'close');
  const fault = body.fault;
  let sent = 0;
  for await (const chunk of body.chunks) {
    if (res.destroyed) return;
    if (fault !== undefined && sent + chunk.length >= fault.afterBytes) {
      const head = chunk.subarray(0, fault.afterBytes - sent);
      if (head.length > 0) await write(res, head);
      await applyFault(res, fault, closed);
      return;
    }
    sent += chunk.length;
    if (!res.write(chunk)) await Promise.race([event(res, 'drain'), closed]);
  }
  if (fault !== undefined) {
    // The body was shorter than the fault's byte count: fail at its very end instead.
    await applyFault(res, fault, closed);
    return;
  }
  res.end();
}

async function applyFault(res: ServerResponse, fault: BodyFault, closed: Promise<void>): Promise<void> {
  if (fault.kind === 'truncate') {
    res.end();
  } else if (fault.kind === 'reset') {
    res.socket?.destroy();
  } else {
    await closed;
  }
}

/** Resolves on the event; never rejects (an 'error' is followed by 'close' anyway). */
function event(res: ServerResponse, name: 'close' | 'drain'): Promise<void> {
  return new Promise((resolve) => res.once(name, () => resolve()));
}

function write(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) resolve();
    else res.write(chunk, () => resolve());
  });
}
