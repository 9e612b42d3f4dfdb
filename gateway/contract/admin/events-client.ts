/**
 * The client side of `GET /api/events` (its table: events.ts): a stream, not a JSON reply, so it is
 * beside the typed client rather than one of its calls. Browser-safe like the client (global
 * fetch); it adds one package, eventsource-parser, for the SSE framing.
 */
import { Value } from '@sinclair/typebox/value';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { CLIENT_ERRORS, type AdminClient } from './client.js';
import { AdminError } from './errors.js';
import { ADMIN_EVENTS, isAdminEventName, type AdminEvent } from './events.js';
import { ErrorBody } from './views.js';

/**
 * An event as the table says it is; null for an event this client does not know (a newer gateway
 * may send more). Data that breaks the table is refused, as a reply that breaks the contract is.
 */
function readEvent(e: EventSourceMessage): AdminEvent | AdminError | null {
  const name = e.event ?? '';
  if (!isAdminEventName(name)) return null;
  const refuse = (why: string): AdminError =>
    new AdminError(200, CLIENT_ERRORS.badReply, `The ${name} event of GET /api/events ${why}.`);
  let data: unknown;
  try {
    data = JSON.parse(e.data);
  } catch {
    return refuse('is not JSON');
  }
  if (!Value.Check(ADMIN_EVENTS[name], data)) {
    const first = Value.Errors(ADMIN_EVENTS[name], data).First();
    return refuse(`does not match the admin contract (${first ? `${first.path || '/'}: ${first.message}` : '?'})`);
  }
  return { event: name, data } as AdminEvent;
}

/**
 * Follows `GET /api/events` with fetch (so it carries the client's headers, which EventSource
 * cannot), yielding each event until the stream ends or `signal` aborts it. A refused request
 * rejects like a call, and so does an event whose data breaks the table.
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
  const queue: (AdminEvent | AdminError)[] = [];
  const parser = createParser({
    onEvent: (e) => {
      const read = readEvent(e);
      if (read) queue.push(read);
    },
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    parser.feed(value);
    while (queue.length > 0) {
      const next = queue.shift()!;
      if (next instanceof AdminError) {
        void reader.cancel();
        throw next;
      }
      yield next;
    }
  }
}
