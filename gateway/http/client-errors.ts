import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError } from '../core/errors.js';
import { FORMAT_LIST } from '../wire/index.js';

/**
 * A request must arrive whole (headers and body) within this time: a client that sends its body a
 * byte at a time would otherwise hold a connection, and a file descriptor, for ever.
 */
export const REQUEST_TIMEOUT_MS = 120_000;
/** How often Node looks for requests past their time (its own default). */
export const REQUEST_CHECK_INTERVAL_MS = 30_000;

export function requestTimedOut(timeoutMs: number): GatewayError {
  const s = Math.round(timeoutMs / 100) / 10;
  return new GatewayError(
    'invalid_request',
    `The request did not arrive whole within ${s} s: its body came too slowly. Nothing was sent upstream and nothing was charged; send it again.`,
    { code: 'request_timeout', status: 408 },
  );
}

type Pending = ServerResponse & { req?: NodeJS.ReadableStream & { listenerCount(e: string): number } };

/**
 * Fastify's `clientErrorHandler`: what a socket is told when Node gives up on its request. Node
 * checks every `checkMs` for requests that did not arrive whole within `timeoutMs`; for one whose
 * headers came and whose body is still trickling in, the body read is failed with a 408, so the
 * route's own error handler answers it in the request's format (or the admin API's shape) and
 * records its failure like any other (its one ledger row; nothing was held yet, as admission comes
 * after the body). The answer says `Connection: close`, and the socket is closed once it is sent.
 * Anything else (headers that never ended, bytes that are not HTTP) has no request to answer
 * through: it gets the first format's error shape, written raw, and the socket is closed. Neither
 * echoes what the client sent.
 */
export function clientErrors(timeoutMs: number): (err: NodeJS.ErrnoException, socket: Socket) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const pending = (socket as Socket & { _httpMessage?: Pending })._httpMessage;
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && pending && !pending.headersSent && pending.req) {
      const req = pending.req;
      if (req.listenerCount('error') > 0) {
        pending.shouldKeepAlive = false;
        req.emit('error', requestTimedOut(timeoutMs));
        return;
      }
    }
    const gerr =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? requestTimedOut(timeoutMs)
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? new GatewayError('invalid_request', 'The request headers are too large.', {
              code: 'headers_too_large',
              status: 431,
            })
          : new GatewayError('invalid_request', 'The request is not valid HTTP.', { code: 'bad_http' });
    if (socket.writable && !pending?.headersSent) {
      const enc = FORMAT_LIST[0]!.encodeError(gerr);
      const body = typeof enc.body === 'string' ? enc.body : JSON.stringify(enc.body);
      const headers = Object.entries({ ...enc.headers, 'content-type': 'application/json' })
        .filter(([k]) => k.toLowerCase() !== 'content-length' && k.toLowerCase() !== 'connection')
        .map(([k, v]) => `${k}: ${String(v)}\r\n`)
        .join('');
      socket.write(
        `HTTP/1.1 ${enc.status} ${STATUS_CODES[enc.status] ?? 'Error'}\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
