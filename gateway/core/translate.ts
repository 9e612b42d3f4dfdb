import type { ServerResponse } from 'node:http';
import type { Gateway } from '../services.js';
import { endpoint } from '../upstream/client.js';
import { ClientClosedError, readUpstreamError, upstreamFailure } from '../upstream/errors.js';
import type { CanonicalRequest, StreamEvent } from './canonical.js';
import type { InboundCodec, ProviderCodec } from './codec.js';
import { countTokens } from './estimate.js';
import { GatewayError } from './errors.js';
import { markFirstByte, settleBeforeEnd, type Exchange, type Outcome } from './exchange.js';
import { sendJson, startSse, write } from './respond.js';
import { readSse } from './sse.js';
import type { Usage } from './usage.js';

export interface TranslateSpec {
  gateway: Gateway;
  exchange: Exchange;
  res: ServerResponse;
  signal: AbortSignal;
  request: CanonicalRequest;
  inbound: InboundCodec;
  provider: ProviderCodec;
  /** How the upstream wants its credential sent. */
  authHeaders(credential: string): Record<string, string>;
  /** Tollgate's count of the prompt: the `start` usage when the upstream reports usage only at the end. */
  promptUsage: Usage;
}

/**
 * Different protocols on the two sides: client wire → canonical (already done by the caller) →
 * upstream wire, and back, event by event when streaming. Throws a GatewayError if nothing has
 * been written to the client yet; once a stream has started, the inbound codec ends it with its
 * own in-band error.
 */
export async function translate(spec: TranslateSpec): Promise<Outcome> {
  const { gateway, exchange, provider } = spec;
  const admission = exchange.admission!;
  const line = admission.line;
  const notes: string[] = [...spec.request.notes];
  const up = provider.toRequest({ ...spec.request, model: admission.upstreamModel, notes }, line.quirks);
  exchange.notes.push(...notes, ...(up.notes ?? []));
  const credential = await gateway.credentialFor(line);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: spec.request.stream ? 'text/event-stream' : 'application/json',
    'user-agent': 'Tollgate',
    ...up.headers,
    ...(credential === undefined ? {} : spec.authHeaders(credential)),
  };
  const upstream = await gateway.upstream.send({
    lineId: line.id,
    url: endpoint(line.baseUrl, up.path),
    headers,
    body: JSON.stringify(up.body),
    timeouts: gateway.timeoutsFor(line),
    signal: spec.signal,
  });
  if (upstream.status >= 400) throw await readUpstreamError(upstream, provider.fromError);
  const ctx = { requestedModel: exchange.model ?? spec.request.model, requestId: exchange.requestId };

  if (!spec.request.stream) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await upstream.body.text());
    } catch (err) {
      if (err instanceof SyntaxError) {
        throw new GatewayError('upstream_error', 'Upstream error: the upstream sent a response that is not valid JSON.', { code: 'upstream_malformed' });
      }
      throw upstreamFailure(err, spec.signal);
    }
    const answer = provider.fromResponse(parsed);
    markFirstByte(exchange);
    const body = spec.inbound.encodeResponse(answer, ctx);
    let outcome: Outcome = { status: 200, usage: answer.usage, usageEstimated: false, error: null };
    if (answer.usageEstimated) {
      const produced = answer.content.map((b) => (b.type === 'text' || b.type === 'thinking' ? b.text : b.type === 'tool_call' ? b.name + JSON.stringify(b.input) : '')).join('');
      outcome = { status: 200, usage: { ...spec.promptUsage, outputTokens: await countTokens(produced) }, usageEstimated: true, error: null };
    }
    await settleBeforeEnd(exchange, outcome);
    sendJson(spec.res, 200, body, { 'x-request-id': exchange.requestId });
    return outcome;
  }

  const tap = new CanonicalTap();
  const outcomeOf = async (status: number, error: GatewayError | null): Promise<Outcome> => {
    if (tap.usage && !tap.usageEstimated) return { status, usage: tap.usage, usageEstimated: false, error };
    // No usage from the upstream (or none for the output): bill the prompt as counted and what was produced.
    return { status, usage: { ...(tap.usage ?? spec.promptUsage), outputTokens: await countTokens(tap.produced) }, usageEstimated: true, error };
  };
  let settled: Outcome | undefined;
  // The stop event carries the final usage and comes before the protocol's terminator: the ledger row first.
  tap.beforeStop = async () => {
    settled = await settleBeforeEnd(exchange, await outcomeOf(200, null));
  };
  const events = tap.watch(provider.fromStream(readSse(upstream.body), spec.promptUsage), spec.signal);
  let clientGone = false;
  try {
    for await (const chunk of spec.inbound.encodeStream(events, ctx)) {
      // Headers go out with the first event, so a line that fails before it can be swapped.
      if (!spec.res.headersSent) startStream(spec, exchange.requestId);
      markFirstByte(exchange);
      const pending = write(spec.res, chunk);
      if (pending) await pending;
      if (spec.res.destroyed) throw new ClientClosedError();
    }
  } catch (err) {
    if (!(err instanceof ClientClosedError)) {
      upstream.body.destroy();
      throw err;
    }
    clientGone = true;
  }
  clientGone ||= spec.res.destroyed;
  upstream.body.destroy();
  if (!clientGone && !spec.res.headersSent) startStream(spec, exchange.requestId);
  if (settled && !tap.failure) {
    if (!clientGone) spec.res.end();
    return settled;
  }
  const error = clientGone ? upstreamFailure(new ClientClosedError()) : tap.failure;
  const outcome = await settleBeforeEnd(exchange, await outcomeOf(clientGone ? 499 : (error?.status ?? 200), error));
  if (!clientGone) spec.res.end();
  return outcome;
}

function startStream(spec: TranslateSpec, requestId: string): void {
  const type = spec.inbound.streamContentType;
  startSse(spec.res, { 'x-request-id': requestId, ...(type ? { 'content-type': type } : {}) });
}

/** Follows a canonical stream: the final usage, what was produced, and how it ended. */
class CanonicalTap {
  usage: Usage | undefined;
  usageEstimated = false;
  produced = '';
  failure: GatewayError | null = null;
  /** Called when the stop event has been read, before it is passed on. */
  beforeStop: (() => Promise<void>) | undefined;

  async *watch(events: AsyncIterable<StreamEvent>, signal: AbortSignal): AsyncGenerator<StreamEvent> {
    let started = false;
    try {
      for await (const ev of events) {
        started = true;
        switch (ev.type) {
          case 'text_delta':
          case 'thinking_delta':
            this.produced += ev.text;
            break;
          case 'tool_args_delta':
            this.produced += ev.json;
            break;
          case 'block_start':
            if (ev.block.type === 'tool_call') this.produced += ev.block.name;
            break;
          case 'stop':
            this.usage = ev.usage;
            this.usageEstimated = ev.usageEstimated === true;
            await this.beforeStop?.();
            break;
          case 'error':
            this.failure = ev.error;
            break;
          default:
            break;
        }
        yield ev;
      }
    } catch (err) {
      // The upstream broke mid-stream (dropped, malformed, timed out): the client gets its
      // protocol's error event; the caller bills what was produced.
      const error = err instanceof SyntaxError
        ? new GatewayError('upstream_error', 'Upstream error: the upstream sent a stream event that is not valid JSON.', { code: 'upstream_malformed' })
        : upstreamFailure(err, signal);
      if (error.code === 'client_closed') throw new ClientClosedError();
      // Before the first event nothing has reached the client: let the caller try another line.
      if (!started) throw error;
      this.failure = error;
      yield { type: 'error', error };
    }
  }
}
