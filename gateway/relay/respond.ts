import type { ServerResponse } from 'node:http';

/** What the relay does with the client's response: node's ServerResponse, or a fake of it in unit tests. */
export type ClientResponse = Pick<
  ServerResponse,
  'writeHead' | 'write' | 'end' | 'flushHeaders' | 'on' | 'off' | 'headersSent' | 'destroyed' | 'writableFinished'
> &
  Partial<Pick<ServerResponse, 'cork' | 'uncork'>>;

const corked = new WeakSet<ClientResponse>();

function uncork(res: ClientResponse): void {
  corked.delete(res);
  res.uncork?.();
}

/**
 * Holds what is written to `res` until the current turn's promise jobs have run, then sends it in
 * one socket write. One upstream read can give a stream several events (a translated stream's
 * first read gives `message_start`, `content_block_start` and the first delta), and each
 * `res.write` would otherwise be a syscall of its own, the stream's headers another: the client gets
 * the same bytes, in fewer writes, as soon as the burst is over (process.nextTick runs after the
 * promise jobs queued with it).
 */
function holdForTurn(res: ClientResponse): void {
  if (res.cork === undefined || corked.has(res)) return;
  corked.add(res);
  res.cork();
  process.nextTick(uncork, res);
}

/** Writes a chunk, waiting for the socket to drain when the client reads slower than we write. */
export function write(res: ClientResponse, chunk: string | Uint8Array): Promise<void> | undefined {
  holdForTurn(res);
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
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function startSse(res: ClientResponse, headers: Record<string, string> = {}): void {
  holdForTurn(res);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  res.flushHeaders();
}
