import type { ServerResponse } from 'node:http';

/** What the relay does with the client's response: node's ServerResponse, or a fake of it in unit tests. */
export type ClientResponse = Pick<
  ServerResponse,
  'writeHead' | 'write' | 'end' | 'on' | 'off' | 'headersSent' | 'destroyed' | 'writableFinished'
>;

/** Writes a chunk, waiting for the socket to drain when the client reads slower than we write. */
export function write(res: ClientResponse, chunk: string | Uint8Array): Promise<void> | undefined {
  if (res.write(chunk)) return undefined;
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * An answer's headers: the upstream's rate-limit headers, the request id, then a format's own
 * (later names win), as `{ ...limits, 'x-request-id': id, ...own }` would give them. Copied name by
 * name: in Node 20's V8 an object spread followed by more properties takes a slow path, 0.7–1.8 µs
 * where assignments take tens of nanoseconds (docs/performance.md), on every answer.
 */
export function answerHeaders(
  limits: Readonly<Record<string, string>>,
  requestId: string,
  own?: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in limits) out[k] = limits[k]!;
  out['x-request-id'] = requestId;
  if (own) for (const k in own) out[k] = own[k]!;
  return out;
}

export function sendJson(
  res: ClientResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  // Bytes (an answer passed through unchanged) go as they are; anything else not a string is serialised.
  const payload = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength;
  const out: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': length };
  for (const k in headers) out[k] = headers[k]!;
  res.writeHead(status, out);
  res.end(payload);
}

/**
 * Starts a stream's answer. The headers are not flushed on their own: the relay starts a stream just
 * before its first event, and node sends stored headers with the first body write, so they share
 * its socket write (node already gathers the chunks written in one tick into one). Flushing them
 * first cost every stream a syscall and the client a packet without a byte of its body.
 */
export function startSse(res: ClientResponse, headers: Readonly<Record<string, string>> = {}): void {
  const out: Record<string, string> = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  };
  for (const k in headers) out[k] = headers[k]!;
  res.writeHead(200, out);
}
