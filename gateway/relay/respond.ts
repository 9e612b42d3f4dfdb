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

export function sendJson(
  res: ClientResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  // Bytes (an answer passed through unchanged) go as they are; anything else not a string is serialised.
  const payload = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': length, ...headers });
  res.end(payload);
}

/**
 * Starts a stream's answer. The headers are not flushed on their own: the relay starts a stream just
 * before its first event, and node sends stored headers with the first body write, so they share
 * its socket write (node already gathers the chunks written in one tick into one). Flushing them
 * first cost every stream a syscall and the client a packet without a byte of its body.
 */
export function startSse(res: ClientResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
}
