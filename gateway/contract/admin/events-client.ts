/**
 * The client side of `GET /api/events` (events.ts): a stream, not a JSON reply, so it is beside the
 * typed client rather than one of its calls. Browser-safe like the client (global fetch); it adds
 * one package, eventsource-parser, for the SSE framing.
 */
import { Value } from '@sinclair/typebox/value';
import { createParser } from 'eventsource-parser';
import { CLIENT_ERRORS, type AdminClient } from './client.js';
import { AdminError } from './errors.js';
import { ErrorBody, type KeyView, type LineView, type LogEntry, type StatusView, type WalletView } from './views.js';

/** One event of `GET /api/events` (docs/admin-api.md, "The event stream"). */
export type AdminEvent =
  | { event: 'snapshot'; data: { status: StatusView; wallet: WalletView; keys: KeyView[]; lines: LineView[] } }
  | { event: 'log'; data: { entry: LogEntry } }
  | { event: 'wallet'; data: { wallet: WalletView } }
  | { event: 'key'; data: { key: KeyView } }
  | { event: 'line'; data: { line: LineView; removed?: boolean } }
  | { event: 'status'; data: { status: StatusView } };

/**
 * Follows `GET /api/events` with fetch (so it carries the client's headers, which EventSource
 * cannot), yielding each event until the stream ends or `signal` aborts it. A refused request
 * rejects like a call.
 */
export async function* adminEvents(client: AdminClient, signal?: AbortSignal): AsyncGenerator<AdminEvent> {
  const o = client.options;
  let res: Response;
  try {
    res = await fetch(`${o.baseUrl.replace(/\/+$/, '')}/api/events`, {
      headers: { ...o.headers, accept: 'text/event-stream' },
      ...(o.credentials === undefined ? {} : { credentials: o.credentials }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new AdminError(0, CLIENT_ERRORS.unreachable, `Cannot reach the Tollgate gateway at ${o.baseUrl}.`, {
      cause: err,
    });
  }
  if (!res.ok || !res.body) {
    const data: unknown = await res.json().catch(() => undefined);
    if (Value.Check(ErrorBody, data)) throw new AdminError(res.status, data.error.code, data.error.message);
    throw new AdminError(res.status, CLIENT_ERRORS.badReply, `GET /api/events answered ${res.status}.`);
  }
  const queue: AdminEvent[] = [];
  const parser = createParser({
    onEvent: (e) => queue.push({ event: e.event, data: JSON.parse(e.data) } as AdminEvent),
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    parser.feed(value);
    while (queue.length > 0) yield queue.shift()!;
  }
}
