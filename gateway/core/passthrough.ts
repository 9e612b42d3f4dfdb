import type { ServerResponse } from 'node:http';
import type { Gateway } from '../services.js';
import { endpoint, type UpstreamResponse } from '../upstream/client.js';
import { ClientClosedError, readUpstreamError, upstreamFailure, type ErrorReader } from '../upstream/errors.js';
import { GatewayError } from './errors.js';
import { markFirstByte, settleBeforeEnd, type Exchange, type Outcome } from './exchange.js';
import { sendJson, startSse, write } from './respond.js';
import { formatSse, readSse, type SseEvent } from './sse.js';
import type { Usage } from './usage.js';

/**
 * Watches a pass-through stream go by: finds the usage, the end and in-band errors without
 * re-encoding anything. One per provider wire format.
 */
export interface StreamTap {
  /** Sees each upstream event; false drops it from the client's stream. Throws SyntaxError on a malformed event. */
  onEvent(ev: SseEvent): boolean;
  usage(): Usage | undefined;
  /** The upstream sent its terminator. */
  complete(): boolean;
  /** The stream is finished in substance but lacks its terminator; returns what to append, or undefined if it is not. */
  repairTail(): string | undefined;
  /** An error the upstream reported in-band. */
  error(): GatewayError | null;
  /** Everything the model produced so far, for counting when no usage comes. */
  produced(): string;
}

/** An error the upstream reported inside a stream it had already started. */
export function upstreamStreamError(message: string | undefined, overloaded = false): GatewayError {
  return new GatewayError(overloaded ? 'upstream_unavailable' : 'upstream_error', `Upstream error during the stream: ${message ?? 'unknown'}`, {
    code: 'upstream_stream_error',
  });
}

/** The common state of the four taps: the usage found, whether the terminator came, an in-band error. */
export abstract class BaseStreamTap implements StreamTap {
  protected found: Usage | undefined;
  protected done = false;
  protected failure: GatewayError | null = null;

  abstract onEvent(ev: SseEvent): boolean;
  abstract produced(): string;

  usage(): Usage | undefined {
    return this.found;
  }
  complete(): boolean {
    return this.done;
  }
  repairTail(): string | undefined {
    return undefined;
  }
  error(): GatewayError | null {
    return this.failure;
  }
}

/** What every provider's pass-through needs from the route. */
export interface PassthroughInput {
  gateway: Gateway;
  exchange: Exchange;
  /** The request body exactly as the client sent it. */
  rawBody: string;
  res: ServerResponse;
  signal: AbortSignal;
  /** Counts usage when the upstream gives none: the prompt plus the produced text. */
  count(produced: string): Promise<Usage>;
  encodeStreamError(err: GatewayError): string;
}

/** Headers of every upstream request on the pass-through path, before the credential. */
export function baseHeaders(stream: boolean): Record<string, string> {
  return { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json', 'user-agent': 'Tollgate' };
}

export interface PassthroughSpec {
  gateway: Gateway;
  exchange: Exchange;
  res: ServerResponse;
  signal: AbortSignal;
  path: string;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
  tap(): StreamTap;
  /** From a whole JSON answer: its usage, if it has one, and what it produced. */
  fromJson(parsed: unknown): { usage: Usage | undefined; produced: string };
  /** Counts usage when the upstream gives none: the prompt plus the produced text. */
  count(produced: string): Promise<Usage>;
  /** An in-band error event in the inbound protocol's shape, for a stream that already started. */
  encodeStreamError(err: GatewayError): string;
  /** The provider's own reading of its error answers, if it has one. */
  fromError?: ErrorReader;
}

/**
 * The body to send upstream on the pass-through path: the client's own bytes when the changes
 * are already there (the common case: no model mapping), so nothing is re-serialised; otherwise
 * a copy with the changes applied.
 */
export function upstreamBody(rawBody: string, body: Record<string, unknown>, changes: Record<string, unknown>): string {
  for (const [k, v] of Object.entries(changes)) {
    if (body[k] !== v && JSON.stringify(body[k]) !== JSON.stringify(v)) return JSON.stringify({ ...body, ...changes });
  }
  return rawBody;
}

/**
 * Same protocol on both sides: the body goes up as given (the caller rewrote only `model`), and
 * the answer comes back byte for byte while the tap reads usage on the way. Throws a GatewayError
 * if nothing has been written to the client yet; once a stream has started, failures end it with
 * an in-band error event instead.
 */
export async function passthrough(spec: PassthroughSpec): Promise<Outcome> {
  const line = spec.exchange.admission!.line;
  const upstream = await spec.gateway.upstream.send({
    lineId: line.id,
    url: endpoint(line.baseUrl, spec.path),
    headers: spec.headers,
    body: spec.body,
    timeouts: spec.gateway.timeoutsFor(line),
    signal: spec.signal,
  });
  if (upstream.status >= 400) throw await readUpstreamError(upstream, spec.fromError);
  return spec.stream ? relayStream(spec, upstream) : relayJson(spec, upstream);
}

async function relayJson(spec: PassthroughSpec, upstream: UpstreamResponse): Promise<Outcome> {
  let text: string;
  try {
    text = await upstream.body.text();
  } catch (err) {
    throw upstreamFailure(err, spec.signal);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GatewayError('upstream_error', 'Upstream error: the upstream sent a response that is not valid JSON.', { code: 'upstream_malformed' });
  }
  const found = spec.fromJson(parsed);
  const usage = found.usage ?? (await spec.count(found.produced));
  markFirstByte(spec.exchange);
  const outcome = await settleBeforeEnd(spec.exchange, { status: upstream.status, usage, usageEstimated: found.usage === undefined, error: null });
  sendJson(spec.res, upstream.status, text, { 'x-request-id': spec.exchange.requestId });
  return outcome;
}

async function relayStream(spec: PassthroughSpec, upstream: UpstreamResponse): Promise<Outcome> {
  const { res, exchange } = spec;
  const tap = spec.tap();
  let failure: GatewayError | null = null;
  let settled: Outcome | undefined;
  const outcomeOf = async (status: number, error: GatewayError | null): Promise<Outcome> => {
    const usage = tap.usage();
    if (usage) return { status, usage, usageEstimated: false, error };
    return { status, usage: await spec.count(tap.produced()), usageEstimated: true, error };
  };
  try {
    for await (const ev of readSse(upstream.body)) {
      if (!tap.onEvent(ev)) continue;
      // The terminator is about to go out: the ledger row first.
      if (tap.complete() && !settled) settled = await settleBeforeEnd(exchange, await outcomeOf(tap.error()?.status ?? 200, tap.error()));
      // Headers go out with the first event, so a line that fails before it can be swapped.
      if (!res.headersSent) startSse(res, { 'x-request-id': exchange.requestId });
      markFirstByte(exchange);
      const pending = write(res, formatSse(ev));
      if (pending) await pending;
      if (res.destroyed) throw new ClientClosedError();
    }
    if (!tap.complete() && !tap.error()) {
      const tail = tap.repairTail();
      if (tail === undefined) {
        throw new GatewayError('upstream_error', 'Upstream error: the upstream closed the stream before it was complete.', { code: 'upstream_stream_incomplete' });
      }
      await write(res, tail);
    }
  } catch (err) {
    failure =
      err instanceof SyntaxError
        ? new GatewayError('upstream_error', 'Upstream error: the upstream sent a stream event that is not valid JSON.', { code: 'upstream_malformed' })
        : upstreamFailure(err, spec.signal);
    upstream.body.destroy();
  }
  const clientGone = failure?.code === 'client_closed' || res.destroyed;
  if (settled) {
    if (!clientGone) res.end();
    return settled;
  }
  // Nothing reached the client yet: the caller may try another line, or answer with a status.
  if (failure && !clientGone && !res.headersSent) throw failure;
  if (!res.headersSent) startSse(res, { 'x-request-id': exchange.requestId });
  if (failure && !clientGone) await write(res, spec.encodeStreamError(failure));
  const error = failure ?? tap.error();
  const outcome = await settleBeforeEnd(exchange, await outcomeOf(clientGone ? 499 : (error?.status ?? 200), error));
  if (!clientGone) res.end();
  return outcome;
}
